// The command menu Telegram shows when a user types "/": set at start from the core's registry, in
// English (the default) and in Arabic (`language_code: 'ar'`).
import type { Api } from 'grammy';
import type { Logger } from '../../core/log/index.ts';

/** Arabic descriptions of the built-in commands; other commands fall back to their English summary. */
export const ARABIC_DESCRIPTIONS: Readonly<Record<string, string>> = {
  help: 'عرض قائمة الأوامر',
  start: 'ما هو Kazma، وما يمكنك فعله هنا',
  new: 'بدء محادثة جديدة في هذه الدردشة',
  compact: 'تلخيص الأدوار الأقدم من هذه المحادثة في رسالة واحدة',
  stop: 'إيقاف الدور الجاري في هذه الدردشة الآن',
  status: 'عرض النموذج والمحادثة والموافقات المعلّقة ومدة التشغيل',
  approvals: 'عرض الموافقات المعلّقة في هذه الدردشة مع أزرارها',
  approve: 'الموافقة مرة واحدة على طلب أداة معلّق: /approve <رقم البوابة>',
  deny: 'رفض طلب أداة معلّق مع سبب اختياري: /deny <رقم البوابة> [السبب]',
  config: 'تغيير الإعدادات (للمشغّلين)',
  task: 'تشغيل مهمة في الخلفية: /task <الهدف>؛ إلغاؤها: /task cancel <الرقم>',
  tasks: 'عرض مهام الخلفية في هذه الدردشة',
  remind: 'تذكير لاحقًا: /remind <متى> <النص> (مثل: بعد ١٠ دقائق)',
  cron: 'تشغيل مهمة بجدول متكرر: /cron add "<النمط>" <الطلب>',
  jobs: 'عرض التذكيرات والمهام المجدولة في هذه الدردشة؛ /jobs cancel <الرقم>',
};

/** Telegram's rules: names of 1–32 of a-z, 0-9 and _, descriptions of 1–256 characters. */
const NAME = /^[a-z0-9_]{1,32}$/;
const fit = (s: string): string => ([...s].length <= 256 ? s : `${[...s].slice(0, 255).join('')}…`);

/** Sets the menu in both languages; a failure is logged, never fatal (the commands work untyped too). */
export async function registerCommands(
  api: Api,
  commands: ReadonlyArray<{ name: string; summary: string }>,
  logger?: Logger,
): Promise<void> {
  const english = commands
    .filter((c) => NAME.test(c.name))
    .map((c) => ({ command: c.name, description: fit(c.summary) }));
  const arabic = english.map((c) => ({
    command: c.command,
    description: ARABIC_DESCRIPTIONS[c.command] ?? c.description,
  }));
  try {
    await api.setMyCommands(english);
    await api.setMyCommands(arabic, { language_code: 'ar' });
  } catch (error) {
    logger?.warn({ err: error }, 'could not set the Telegram command menu; commands still work when typed');
  }
}
