// Slack's message limits, answered with the real error strings so the adapter's splitting and
// error handling are tested against what production would say. `invalid_blocks` carries the
// `[ERROR] … [json-pointer:…]` messages Slack puts in response_metadata.

export type Block = Record<string, unknown>;

export type SlackErrorBody = { ok: false; error: string; response_metadata?: { messages: string[] } };

export interface MessageContent {
  text?: string;
  blocks?: Block[];
  attachments?: unknown;
  metadata?: unknown;
}

export const LIMITS = {
  text: 40_000,
  blocks: 50,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  actionsElements: 25,
  contextElements: 10,
  buttonText: 75,
  actionId: 255,
  blockId: 255,
  buttonValue: 2000,
  url: 3000,
} as const;

/** Slack counts characters, not UTF-16 units; code points are the honest approximation. */
const len = (s: string): number => [...s].length;

/** Form bodies carry non-scalars as JSON strings; JSON bodies carry them as-is. */
export function decodeJsonField(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

const textOf = (o: unknown): string | undefined => {
  const t = (o as { text?: unknown } | undefined)?.text;
  return typeof t === 'string' ? t : undefined;
};

function checkElement(el: unknown, at: string, errs: string[]): void {
  if (typeof el !== 'object' || el === null) return void errs.push(`[ERROR] must be an object [json-pointer:${at}]`);
  const e = el as Record<string, unknown>;
  if (typeof e.action_id === 'string' && len(e.action_id) > LIMITS.actionId)
    errs.push(`[ERROR] must be less than ${LIMITS.actionId + 1} characters [json-pointer:${at}/action_id]`);
  if (e.type !== 'button') return;
  const label = textOf(e.text);
  if (label === undefined) errs.push(`[ERROR] missing required field: text [json-pointer:${at}]`);
  else if (len(label) > LIMITS.buttonText)
    errs.push(`[ERROR] must be less than ${LIMITS.buttonText + 1} characters [json-pointer:${at}/text/text]`);
  if (typeof e.value === 'string' && len(e.value) > LIMITS.buttonValue)
    errs.push(`[ERROR] must be less than ${LIMITS.buttonValue + 1} characters [json-pointer:${at}/value]`);
  if (typeof e.url === 'string' && len(e.url) > LIMITS.url)
    errs.push(`[ERROR] must be less than ${LIMITS.url + 1} characters [json-pointer:${at}/url]`);
}

function checkBlock(b: unknown, at: string, errs: string[]): void {
  if (typeof b !== 'object' || b === null || typeof (b as Block).type !== 'string') {
    return void errs.push(`[ERROR] missing required field: type [json-pointer:${at}]`);
  }
  const block = b as Block;
  const max = (n: number, field: string) =>
    `[ERROR] must be less than ${n + 1} characters [json-pointer:${at}/${field}]`;
  const items = (n: number, field: string) => `[ERROR] no more than ${n} items allowed [json-pointer:${at}/${field}]`;
  if (typeof block.block_id === 'string' && len(block.block_id) > LIMITS.blockId)
    errs.push(max(LIMITS.blockId, 'block_id'));
  if (block.type === 'section') {
    const text = textOf(block.text);
    const fields = Array.isArray(block.fields) ? block.fields : undefined;
    if (text === undefined && !fields) errs.push(`[ERROR] must provide either text or fields [json-pointer:${at}]`);
    if (text !== undefined && len(text) > LIMITS.sectionText) errs.push(max(LIMITS.sectionText, 'text/text'));
    if (fields && fields.length > LIMITS.sectionFields) errs.push(items(LIMITS.sectionFields, 'fields'));
    fields?.forEach((f, i) => {
      const t = textOf(f);
      if (t !== undefined && len(t) > LIMITS.fieldText) errs.push(max(LIMITS.fieldText, `fields/${i}/text`));
    });
    if (block.accessory !== undefined) checkElement(block.accessory, `${at}/accessory`, errs);
  } else if (block.type === 'header') {
    const text = textOf(block.text);
    if (text === undefined) errs.push(`[ERROR] missing required field: text [json-pointer:${at}]`);
    else if (len(text) > LIMITS.headerText) errs.push(max(LIMITS.headerText, 'text/text'));
  } else if (block.type === 'actions' || block.type === 'context') {
    const limit = block.type === 'actions' ? LIMITS.actionsElements : LIMITS.contextElements;
    if (!Array.isArray(block.elements))
      return void errs.push(`[ERROR] missing required field: elements [json-pointer:${at}]`);
    if (block.elements.length > limit) errs.push(items(limit, 'elements'));
    if (block.type === 'actions') {
      for (const [i, el] of block.elements.entries()) checkElement(el, `${at}/elements/${i}`, errs);
    }
  }
}

/**
 * Decodes and checks a message's content the way chat.postMessage, chat.update, chat.postEphemeral
 * and response_url do: content must not be empty (`no_text`) even where omitted fields are kept.
 */
export function checkMessage(args: Record<string, unknown>): MessageContent | SlackErrorBody {
  const out: MessageContent = {};
  if (args.text !== undefined) out.text = String(args.text);
  if (args.blocks !== undefined) {
    const blocks = decodeJsonField(args.blocks);
    if (!Array.isArray(blocks)) return { ok: false, error: 'invalid_blocks_format' };
    const errs: string[] = [];
    if (blocks.length > LIMITS.blocks)
      errs.push(`[ERROR] no more than ${LIMITS.blocks} items allowed [json-pointer:/blocks]`);
    for (const [i, b] of blocks.entries()) checkBlock(b, `/blocks/${i}`, errs);
    if (errs.length) return { ok: false, error: 'invalid_blocks', response_metadata: { messages: errs } };
    out.blocks = blocks as Block[];
  }
  if (args.attachments !== undefined) out.attachments = decodeJsonField(args.attachments);
  if (args.metadata !== undefined) out.metadata = decodeJsonField(args.metadata);
  if (out.text !== undefined && len(out.text) > LIMITS.text) return { ok: false, error: 'msg_too_long' };
  const hasAttachments = Array.isArray(out.attachments) && out.attachments.length > 0;
  if (!out.text && !(out.blocks && out.blocks.length > 0) && !hasAttachments) return { ok: false, error: 'no_text' };
  return out;
}

export const isError = (r: unknown): r is SlackErrorBody => (r as { ok?: unknown }).ok === false;
