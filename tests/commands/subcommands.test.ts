// The one sub-command parser (src/core/commands/subcommands.ts): the first word picks the sub-command from
// the table, which is handed the words and the text after its name; no word, an unknown word or too many
// words go to the table's `none` / `other` or get the usage reply, itself derived from the table.
import { describe, expect, it } from 'vitest';
import {
  CommandRegistry,
  parseCommand,
  runSubcommands,
  type SubcommandTable,
  usageLines,
  usageReply,
} from '../../src/core/commands/index.ts';
import type { Db } from '../../src/core/db/index.ts';

/** Runs `text` through the table; returns what was said and which handler ran with what. */
async function run(table: SubcommandTable, text: string): Promise<string[]> {
  const said: string[] = [];
  const parsed = parseCommand(text)!;
  await runSubcommands(table)({
    chat: 'telegram:1',
    actor: { platform: 'telegram', id: '42' },
    role: 'operator',
    args: parsed.args,
    rest: parsed.rest,
    commands: new CommandRegistry(),
    eventKey: 'telegram:ev1',
    reply: async (text) => void said.push(text),
    once: async (_name, effect) => effect({} as Db),
  });
  return said;
}

/** A handler that says its name and what it was handed. */
const says =
  (name: string) => async (ctx: { reply(text: string): Promise<void> }, input: { words: string[]; rest: string }) =>
    ctx.reply(`${name} ${JSON.stringify(input.words)} ${JSON.stringify(input.rest)}`);

const notes = (over: Partial<SubcommandTable> = {}): SubcommandTable => ({
  command: 'notes',
  ignoreCase: true,
  subcommands: {
    add: { params: '<text>', run: says('add') },
    drop: { params: '<id>', required: { see: '/notes list' }, maxWords: 1, run: says('drop') },
    tags: {
      subcommands: { list: { run: says('tags list') }, rename: { params: '<from> <to>', run: says('rename') } },
      none: says('tags none'),
    },
  },
  ...over,
});

describe('the sub-command table', () => {
  it('hands the sub-command the words after its name, and the text after it as typed', async () => {
    expect(await run(notes(), '/notes add  buy\nmilk ')).toEqual(['add ["buy","milk"] "buy\\nmilk"']);
    expect(await run(notes(), '/notes add')).toEqual(['add [] ""']);
    expect(await run(notes(), '/notes tags rename a b')).toEqual(['rename ["a","b"] "a b"']);
  });

  it('derives its usage lines, branches included, in the order of the table', () => {
    expect(usageLines(notes())).toEqual([
      '/notes add <text>',
      '/notes drop <id>',
      '/notes tags list',
      '/notes tags rename <from> <to>',
    ]);
    expect(usageReply(notes())).toBe(
      'Usage: /notes add <text> · /notes drop <id> · /notes tags list · /notes tags rename <from> <to>',
    );
    const own = notes({ usage: (lines) => `Try ${lines[0]}.` });
    expect(usageReply(own)).toBe('Try /notes add <text>.');
  });

  it('answers the usage for no sub-command, an unknown one and an unknown one in a branch', async () => {
    const usage = usageReply(notes());
    expect(await run(notes(), '/notes')).toEqual([usage]);
    expect(await run(notes(), '/notes nonsense here')).toEqual([usage]);
    expect(await run(notes(), '/notes tags nonsense')).toEqual([usage]);
    expect(await run(notes({ usage: () => 'See /help.' }), '/notes')).toEqual(['See /help.']);
  });

  it('runs `none` when no word follows and `other` for an unknown word, handed every word', async () => {
    const table = notes({ none: says('none'), other: says('other') });
    expect(await run(table, '/notes')).toEqual(['none [] ""']);
    expect(await run(table, '/notes buy milk')).toEqual(['other ["buy","milk"] "buy milk"']);
    expect(await run(table, '/notes tags')).toEqual(['tags none [] ""']);
  });

  it('matches names whatever their case only when the table says so', async () => {
    expect(await run(notes(), '/notes ADD x')).toEqual(['add ["x"] "x"']);
    expect(await run(notes(), '/notes Tags LIST')).toEqual(['tags list [] ""']);
    const exact = notes({ ignoreCase: false, other: says('other') });
    expect(await run(exact, '/notes ADD x')).toEqual(['other ["ADD","x"] "ADD x"']);
    expect(await run(exact, '/notes add x')).toEqual(['add ["x"] "x"']);
  });

  it('a required word missing gets the sub-command usage line, pointing where to look', async () => {
    expect(await run(notes(), '/notes drop')).toEqual(['Usage: /notes drop <id> (see /notes list).']);
    expect(await run(notes(), '/notes DROP')).toEqual(['Usage: /notes drop <id> (see /notes list).']);
  });

  it('more words than a sub-command takes make the text `other`’s (or the usage)', async () => {
    expect(await run(notes(), '/notes drop n1')).toEqual(['drop ["n1"] "n1"']);
    expect(await run(notes(), '/notes drop n1 n2')).toEqual([usageReply(notes())]);
    expect(await run(notes({ other: says('other') }), '/notes drop the old ones')).toEqual([
      'other ["drop","the","old","ones"] "drop the old ones"',
    ]);
  });

  it('knows only its own names, not those every object has', async () => {
    const table = notes({ other: says('other') });
    for (const word of ['constructor', 'toString', '__proto__', 'hasOwnProperty'])
      expect(await run(table, `/notes ${word}`)).toEqual([`other ["${word}"] "${word}"`]);
  });
});
