// A person mistypes the command line: one line says what is wrong and the likely fix, with the exit
// code for a usage error (2) — never a stack trace. Run as typed, on the compiled CLI.
import { expect, it } from 'vitest';
import { runKazma } from '../helpers/kazma-process.ts';

const CASES: Array<{ args: string[]; line: string }> = [
  {
    args: ['doctor', '--confg', 'kazma.yaml'],
    line: 'kazma doctor: unknown option --confg (did you mean --config?); see "kazma doctor --help"',
  },
  { args: ['start', '--bogus'], line: 'kazma start: unknown option --bogus; see "kazma start --help"' },
  { args: ['doctor', '--config'], line: 'kazma doctor: --config needs a value; see "kazma doctor --help"' },
  { args: ['doctor', 'extra'], line: 'kazma doctor: unexpected argument extra; see "kazma doctor --help"' },
];

it.each(CASES)('kazma $args.0 with a mistake prints one line naming it', async ({ args, line }) => {
  const { code, stdout, stderr } = await runKazma(args, { env: { DATABASE_URL: undefined, REDIS_URL: undefined } });
  expect(stderr.trim()).toBe(line);
  expect(stdout).toBe('');
  expect(code).toBe(2);
});

it('a misspelt command is named with the nearest one', async () => {
  const { code, stderr } = await runKazma(['strat']);
  expect(stderr.split('\n')[0]).toBe('kazma: unknown command "strat" (did you mean "kazma start"?)');
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(code).toBe(2);
});
