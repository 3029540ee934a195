// The questions `kazma init` asks: one line each from stdin, whether a person types them at a terminal or a
// script pipes them in. Lines are queued as they arrive: a pipe delivers every answer at once, before the
// questions that want them are asked.
import { createInterface, type Interface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/** Asks questions on `output` and reads the answers from `input`. */
export class Prompter {
  readonly #rl: Interface;
  readonly #lines: string[] = [];
  readonly #waiting: Array<(line: string | undefined) => void> = [];
  readonly #tty: boolean;
  #ended = false;
  /** While set, what the terminal echoes (a secret being typed) is not shown. */
  #muted = false;

  constructor(
    input: NodeJS.ReadableStream & { isTTY?: boolean },
    private readonly output: NodeJS.WritableStream,
  ) {
    this.#tty = input.isTTY === true;
    const shown = new Writable({
      write: (chunk, _encoding, done) => {
        if (!this.#muted) output.write(chunk);
        done();
      },
    });
    this.#rl = createInterface({ input, output: shown, terminal: this.#tty });
    this.#rl.on('line', (line) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
    this.#rl.on('close', () => {
      this.#ended = true;
      for (const waiter of this.#waiting.splice(0)) waiter(undefined);
    });
  }

  /** True once stdin ended and every line was read: no answer is coming any more. */
  get ended(): boolean {
    return this.#ended && this.#lines.length === 0;
  }

  /** Says something between questions. */
  say(text: string): void {
    this.output.write(`${text}\n`);
  }

  /**
   * Asks `question`; the answer trimmed, or `fallback` when it is empty (or stdin ended). A `secret` typed at
   * a terminal is not echoed.
   */
  async ask(question: string, options: { fallback?: string; secret?: boolean } = {}): Promise<string> {
    const hint = options.fallback ? ` [${options.fallback}]` : '';
    this.output.write(`${question}${hint}: `);
    this.#muted = options.secret === true && this.#tty;
    const line = await this.#next();
    if (this.#muted || !this.#tty) this.output.write('\n');
    this.#muted = false;
    const answer = (line ?? '').trim();
    return answer === '' ? (options.fallback ?? '') : answer;
  }

  /** A yes/no question; the empty answer is `fallback`. */
  async confirm(question: string, fallback: boolean): Promise<boolean> {
    const answer = await this.ask(`${question} (y/n)`, { fallback: fallback ? 'y' : 'n' });
    return /^y(es)?$/i.test(answer);
  }

  close(): void {
    this.#rl.close();
  }

  #next(): Promise<string | undefined> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}
