// What each command with sub-commands (/approvals, /task, /jobs, /cron, /config) does with what follows its
// name: which sub-command runs, what a missing or unknown one gets, whether the case of its name counts,
// and under which name a change is journalled (ctx.once). Pinned word for word, so moving the commands onto
// one sub-command parser (src/core/commands/subcommands.ts) changes none of it. The ports are plain fakes
// that log what was asked of them; the command text goes through the real parseCommand.
import { describe, expect, it } from 'vitest';
import { approvalCommands, type ApprovalCommandsPort } from '../../src/core/approvals/commands.ts';
import { CommandRegistry, parseCommand, type ChatCommand } from '../../src/core/commands/index.ts';
import type { Db } from '../../src/core/db/index.ts';
import type { JsonValue } from '../../src/core/effects/index.ts';
import { scheduleCommands, type ScheduleCommandsPort } from '../../src/core/schedules/commands.ts';
import type { ScheduleRow } from '../../src/core/schedules/store.ts';
import { configCommand, type ConfigCommandPort } from '../../src/core/settings/commands.ts';
import { taskCommands, type TaskCommandsPort } from '../../src/core/tasks/commands.ts';
import type { TaskRow } from '../../src/core/tasks/transition.ts';

const CHAT = 'telegram:1';
const ME = { platform: 'telegram', id: '42' } as const;
const DUE = new Date('2030-01-01T09:00:00Z');

/** Runs `text` through the command it names; returns everything said and asked, in order. */
async function run(commands: ChatCommand[], text: string, log: string[], role: 'operator' | 'user' = 'operator') {
  const parsed = parseCommand(text)!;
  const command = commands.find((c) => c.name === parsed.name)!;
  await command.run({
    chat: CHAT,
    actor: ME,
    role,
    args: parsed.args,
    rest: parsed.rest,
    commands: new CommandRegistry(),
    eventKey: 'telegram:ev1',
    reply: async (said) => void log.push(`reply: ${said}`),
    once: async <T extends JsonValue>(name: string, effect: (tx: Db) => Promise<T>) => {
      log.push(`once: ${name}`);
      return effect({} as Db);
    },
  });
  return log.splice(0);
}

describe('/approvals', () => {
  const log: string[] = [];
  const port: ApprovalCommandsPort = {
    pending: async () => ['gt_1'],
    repost: async (id) => Boolean(log.push(`repost ${id}`)),
    decide: async () => ({ ok: false }) as never,
    grants: async () => [],
    revokeGrant: async (id) => Boolean(log.push(`revoke ${id}`)) && id === 'gr_1',
    history: async (_chat, n) => {
      log.push(`history ${n}`);
      const common = { gate: 'gt_1', tool: 'shell', args: '{"command":"git push"}', requester: 'maya' };
      const none = { chat: null, policy: null, decision: null, detail: null };
      return [
        { ...common, ...none, at: '2026-01-02T12:03:00.000Z', step: 'requested', by: 'maya', platform: 'telegram' },
        { ...common, ...none, at: '2026-01-02T12:04:00.000Z', step: 'counted', by: 'omar', platform: 'slack' },
      ].map((r) => ({ ...r, policy: 'production', decision: r.step === 'counted' ? 'once' : null }));
    },
  };
  const commands = approvalCommands(port);
  const listed = ['reply: 1 approval waiting in this chat:', 'repost gt_1'];

  it.each([
    ['/approvals', listed],
    ['/approvals grants', ['reply: No "always" grants are in force in this chat.']],
    ['/approvals grants extra words', ['reply: No "always" grants are in force in this chat.']],
    ['/approvals GRANTS', listed],
    ['/approvals revoke', ['reply: Usage: /approvals revoke <grant id> (see /approvals grants).']],
    ['/approvals revoke gr_1', ['revoke gr_1', 'reply: Revoked gr_1: that call will ask again.']],
    ['/approvals revoke gr_2 x', ['revoke gr_2', 'reply: No grant gr_2 is in force.']],
    ['/approvals Revoke gr_1', listed],
    [
      '/approvals history',
      [
        'history 5',
        'reply: Approval history of this chat (the last 5 questions, every step):\n' +
          '2026-01-02 12:03 UTC · gt_1 · requested shell {"command":"git push"} by maya\n' +
          '2026-01-02 12:04 UTC · gt_1 · counted once by omar on slack\n' +
          'gt_1: policy production\n' +
          'Everything, with who decided where: kazma approvals export.',
      ],
    ],
    ['/approvals history 0', ['reply: Usage: /approvals history [n] (n from 1 to 20 questions; default 5).']],
    ['/approvals nonsense', listed],
    ['/approvals constructor', listed],
  ])('%s', async (text, expected) => {
    expect(await run(commands, text, log)).toEqual(expected);
  });

  it('/approvals revoke <id> by a user: the usage first, then the refusal', async () => {
    expect(await run(commands, '/approvals revoke', log, 'user')).toEqual([
      'reply: Usage: /approvals revoke <grant id> (see /approvals grants).',
    ]);
    expect(await run(commands, '/approvals revoke gr_1', log, 'user')).toEqual([
      'reply: Only operators may revoke grants.',
    ]);
  });
});

describe('/task', () => {
  const log: string[] = [];
  const task = { id: 'tk_1', requester: ME, state: 'queued' } as unknown as TaskRow;
  const port: TaskCommandsPort = {
    record: async (_tx, input) => {
      log.push(`record ${JSON.stringify(input.goal)}`);
      return { taskId: 'tk_new', cards: [], children: [] };
    },
    launch: async (recorded) => void log.push(`launch ${recorded.taskId}`),
    get: async (id) => (id === 'tk_1' ? task : undefined),
    cancel: async (id) => (log.push(`cancel ${id}`), { ok: true, task }),
    ofChat: async () => [],
  };
  const commands = taskCommands(port);
  const started = (goal: string) => ['once: task', `record ${JSON.stringify(goal)}`, 'launch tk_new'];

  it.each([
    [
      '/task',
      ['reply: Usage: /task <goal> starts a background task; /task cancel <id> cancels one; /tasks lists them.'],
    ],
    ['/task count the files', started('count the files')],
    ['/task   count\n  the files  ', started('count\n  the files')],
    ['/task cancel', ['reply: Usage: /task cancel <task id> (see /tasks).']],
    ['/task cancel tk_1', ['cancel tk_1', 'reply: Cancelled task tk_1.']],
    ['/task CANCEL tk_1', ['cancel tk_1', 'reply: Cancelled task tk_1.']],
    ['/task cancel tk_2', ['reply: There is no task tk_2 you may cancel.']],
    ['/task cancel the meeting notes', started('cancel the meeting notes')],
    ['/task constructor', started('constructor')],
  ])('%s', async (text, expected) => {
    expect(await run(commands, text, log)).toEqual(expected);
  });
});

describe('/jobs and /cron', () => {
  const log: string[] = [];
  const row = {
    id: 'jb_1',
    kind: 'cron',
    state: 'scheduled',
    chat: CHAT,
    requester: ME,
    text: 'say hi',
    pattern: '0 9 * * *',
    zone: 'UTC',
    dueAt: DUE,
  } as unknown as ScheduleRow;
  const port: ScheduleCommandsPort = {
    recordReminder: async () => row,
    anchor: async () => ({ kind: 'plain' }),
    recordCron: async (_tx, input) => {
      log.push(`cron ${JSON.stringify(input.pattern)} ${JSON.stringify(input.prompt)}`);
      return row;
    },
    arm: async (r) => r,
    cancel: async (id) => Boolean(log.push(`cancel ${id}`)),
    get: async (id) => (id === 'jb_1' ? row : undefined),
    list: async () => [],
    format: (at) => at.toISOString(),
  };
  const commands = scheduleCommands(port);
  const nothing = [
    'reply: Nothing is scheduled in this chat. /remind <when> <text> or /cron add "<pattern>" <prompt>.',
  ];
  const cronUsage = [
    'reply: Usage: /cron add "<cron pattern>" <prompt>, e.g. /cron add "0 9 * * 1-5" summarise ' +
      "yesterday's alerts. /jobs lists, /jobs cancel <id> stops.",
  ];
  const added = (pattern: string, prompt: string) => [
    'once: cron add',
    `cron ${JSON.stringify(pattern)} ${JSON.stringify(prompt)}`,
    'reply: 🔁 "0 9 * * *" (UTC) will run: say hi (jb_1; /jobs cancel jb_1 to stop).',
  ];

  it.each([
    ['/jobs', nothing],
    ['/jobs nonsense', nothing],
    ['/jobs constructor', nothing],
    ['/jobs cancel', ['reply: Usage: /jobs cancel <id> (see /jobs).']],
    ['/jobs cancel jb_1', ['cancel jb_1', 'reply: Cancelled jb_1: it will not run.']],
    ['/jobs Cancel jb_1 and more', ['cancel jb_1', 'reply: Cancelled jb_1: it will not run.']],
    ['/jobs cancel jb_2', ['reply: There is no scheduled job jb_2 you may cancel here.']],
    ['/cron', cronUsage],
    ['/cron list', cronUsage],
    ['/cron add', cronUsage],
    ['/cron add "0 9 * * *"', cronUsage],
    ['/cron add 0 9 * * * say hi', cronUsage],
    ['/cron ADD "0 9 * * *" say hi', cronUsage],
    ['/cron add"0 9 * * *" say hi', cronUsage],
    ['/cron constructor', cronUsage],
    ['/cron add "0 9 * * *" say hi', added('0 9 * * *', 'say hi')],
    ['/cron add  " 0 9 * * * "\n  say\nhi ', added('0 9 * * *', 'say\nhi')],
  ])('%s', async (text, expected) => {
    expect(await run(commands, text, log)).toEqual(expected);
  });
});

describe('/config', () => {
  const log: string[] = [];
  const tools = [
    { name: 'write_file', on: true, tier: 'write' },
    { name: 'read_file', on: true, tier: 'safe' },
  ];
  const port: ConfigCommandPort = {
    tools: () => tools,
    setTool: async (_tx, name, on) => void log.push(`set ${name} ${on}`),
    effective: () => ({ model: { name: 'm' } }),
    audit: async (entry) => void log.push(`audit ${entry.command} ${entry.outcome}`),
  };
  const command = configCommand(port);
  const usage = ['reply: Usage: /config tools list · /config tools toggle <name> · /config show · /config export'];
  const list = [
    'reply: Tools:\n🟢 write_file — on — asks first (write)\n🟢 read_file — on — runs freely\n' +
      'Switch one with /config tools toggle <name>.',
  ];
  const toggled = [
    'once: tools toggle write_file',
    'set write_file false',
    'audit tools toggle write_file changed',
    'reply: write_file is off: the model is not offered it from the next message (saved; survives restarts).',
  ];

  it('says its sub-commands in its summary', () => {
    expect(command.summary).toBe(
      'change settings (operators): /config tools list · /config tools toggle <name> · /config show · /config export',
    );
  });

  it.each([
    ['/config', usage],
    ['/config nonsense', usage],
    ['/config constructor', usage],
    ['/config tools', list],
    ['/config tools list', list],
    ['/config TOOLS List extra', list],
    ['/config tools nonsense', usage],
    ['/config tools toggle', ['reply: Usage: /config tools toggle <name> (see /config tools list).']],
    ['/config tools toggle WRITE_FILE', toggled],
    ['/config tools Toggle write_file extra', toggled],
    [
      '/config tools toggle write_fiel',
      ['reply: There is no tool "write_fiel". Did you mean write_file? Tools: write_file, read_file.'],
    ],
    [
      '/config SHOW',
      ['once: show', 'audit show read', 'reply: Effective configuration (secrets masked):\nmodel:\n  name: m'],
    ],
    [
      '/config export now',
      [
        'once: export',
        'audit export read',
        'reply: # kazma.yaml, exported (secrets redacted: put them back as ${ENV} or vault:// pointers)\n' +
          'model:\n  name: m',
      ],
    ],
  ])('%s', async (text, expected) => {
    expect(await run([command], text, log)).toEqual(expected);
  });
});
