import type { Db } from '../db/index.ts';
import type { Actor } from '../surface/index.ts';
import type { Logger } from '../log/index.ts';
import type { EmbeddingsClient } from './embeddings.ts';
import { selectRecalled, type RecallSettings } from './recall.ts';
import { recalledNotes } from './recalled-text.ts';
import type { Embedding } from './similarity.ts';
import type { MemoryStore, MemoryNote } from './store.ts';
import type { NewMemory, RememberOutcome } from './remember.ts';

/** After a failed embeddings request, the endpoint is left alone this long. */
const EMBEDDINGS_PAUSE_MS = 60_000;

/** Whose memory a turn reads and writes: the person who asked, and the chat it happened in. */
export interface MemoryOwners {
  person: string;
  chat: string;
}

/** Who asked and where; what the agent's turn carries. */
export interface TurnParties {
  chat: string;
  requester: Actor;
}

/** What {@link Memory} needs. */
export interface MemoryDeps {
  store: MemoryStore;
  /** Absent: notes are found by full text only. */
  embeddings?: EmbeddingsClient;
  recall: RecallSettings;
  /** time.zone: the day a recalled note was written is told in it. */
  zone: string;
  /** The operator an actor is (access.operators), so one person has one memory on every platform. */
  operatorName: (actor: Actor) => string | undefined;
  logger: Logger;
}

/**
 * Memory as the agent uses it: whose notes a turn reads and writes, and the recalled block before each
 * turn. An embeddings endpoint that fails costs similarity, never the turn: the note is stored, and the
 * turn recalls, by full text.
 */
export class Memory {
  private pausedUntil = 0;
  private failing = false;

  constructor(private readonly deps: MemoryDeps) {}

  /** `person:<operator>` for an operator (one memory on every platform), else `user:<platform>:<id>`. */
  ownersOf(turn: TurnParties): MemoryOwners {
    const operator = this.deps.operatorName(turn.requester);
    const person = operator ? `person:${operator}` : `user:${turn.requester.platform}:${turn.requester.id}`;
    return { person, chat: `chat:${turn.chat}` };
  }

  /** Writes a note of the person (or, `scope: 'chat'`, of the chat), with its embedding when there is one. */
  async remember(
    turn: TurnParties,
    note: Pick<NewMemory, 'text' | 'subject' | 'source' | 'validFrom'> & { scope: keyof MemoryOwners },
  ): Promise<RememberOutcome> {
    const owner = this.ownersOf(turn)[note.scope];
    const embedding = await this.embed(note.text);
    return this.deps.store.remember({
      owner,
      text: note.text,
      source: note.source,
      ...(note.subject && { subject: note.subject }),
      ...(note.validFrom && { validFrom: note.validFrom }),
      ...(embedding && { embedding }),
    });
  }

  /** The current note `id` of the person or the chat, if it is one. */
  async find(turn: TurnParties, id: string): Promise<MemoryNote | undefined> {
    const { person, chat } = this.ownersOf(turn);
    return this.deps.store.find([person, chat], id);
  }

  /** The current notes of the person and the chat that hold every content word of `words` (a date's anchor). */
  notesWith(turn: TurnParties, words: string): Promise<MemoryNote[]> {
    const { person, chat } = this.ownersOf(turn);
    return this.deps.store.withWords([person, chat], words);
  }

  /** Forgets notes of the person or the chat (tombstones), on `db`; how many it forgot. */
  forgetOn(db: Db | undefined, turn: TurnParties, ids: readonly string[]): Promise<number> {
    const { person, chat } = this.ownersOf(turn);
    return this.deps.store.forget({ owners: [person, chat], ids }, db);
  }

  /**
   * At start, with pgvector: the HNSW indexes of the stored vectors' lengths (store.ts prepareSearch). One built
   * now (the first start after an upgrade) is said before, and when done: the start waits for it.
   */
  async prepareSearch(): Promise<void> {
    const started = performance.now();
    let built = false;
    await this.deps.store.prepareSearch(({ length, notes }) => {
      built = true;
      this.deps.logger.info(
        { notes, length },
        'memory: building the similarity index over the stored notes; the start waits for it ' +
          '(once: minutes for 100,000 notes)',
      );
    });
    if (built) this.deps.logger.info({ ms: Math.round(performance.now() - started) }, 'memory: similarity index built');
  }

  /** At start: the forget journal applied again (store.ts replayForgets); what it forgot is logged. */
  async replayForgets(): Promise<void> {
    const forgot = await this.deps.store.replayForgets();
    if (forgot > 0)
      this.deps.logger.info({ forgot }, 'memory: forgotten notes a restore brought back are forgotten again');
  }

  /** The newest current notes of the person and the chat. */
  recent(turn: TurnParties, limit: number): Promise<MemoryNote[]> {
    const { person, chat } = this.ownersOf(turn);
    return this.deps.store.recent([person, chat], limit);
  }

  /**
   * The notes of the person and the chat that bear on `query`, best first: recall's score and floor,
   * without its cut at a gap or its token budget.
   */
  async search(turn: TurnParties, query: string, limit = 10): Promise<MemoryNote[]> {
    if (query.trim() === '') return [];
    const { person, chat } = this.ownersOf(turn);
    const embedding = await this.embed(query);
    const candidates = await this.deps.store.candidates({
      owners: [person, chat],
      query,
      ...(embedding && { embedding }),
    });
    const settings = { ...this.deps.recall, maxGap: Number.POSITIVE_INFINITY, maxTokens: Number.POSITIVE_INFINITY };
    return selectRecalled(query, candidates, { ...settings, maxNotes: limit });
  }

  /**
   * The text's embedding, or undefined: no endpoint, or it failed. A failure is logged once, and the
   * endpoint is not asked again for {@link EMBEDDINGS_PAUSE_MS} (elapsed time), so an endpoint that hangs
   * costs one turn its timeout, not every turn.
   */
  async embed(text: string): Promise<Embedding | undefined> {
    if (!this.deps.embeddings || performance.now() < this.pausedUntil) return undefined;
    try {
      const [embedding] = await this.deps.embeddings.embed([text]);
      if (this.failing) this.deps.logger.info('memory: the embeddings endpoint answers again');
      this.failing = false;
      return embedding;
    } catch (error) {
      this.pausedUntil = performance.now() + EMBEDDINGS_PAUSE_MS;
      if (!this.failing) this.deps.logger.warn({ err: error }, 'memory: embeddings failed; finding notes by full text');
      this.failing = true;
      return undefined;
    }
  }

  /**
   * The fenced block of notes recalled for `query` in this turn, or undefined when none clears the floor.
   * A failed read is logged and recalls nothing: memory helps a turn, it never stops one.
   */
  async recall(turn: TurnParties, query: string): Promise<string | undefined> {
    if (query.trim() === '') return undefined;
    try {
      return await this.recallOrThrow(turn, query);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'memory: recall failed; the turn goes on without it');
      return undefined;
    }
  }

  private async recallOrThrow(turn: TurnParties, query: string): Promise<string | undefined> {
    const { person, chat } = this.ownersOf(turn);
    // Most turns of someone with no notes: no embeddings request, no search.
    if (!(await this.deps.store.hasNotes([person, chat]))) return undefined;
    const embedding = await this.embed(query);
    const candidates = await this.deps.store.candidates({
      owners: [person, chat],
      query,
      ...(embedding && { embedding }),
    });
    const recalled = selectRecalled(query, candidates, this.deps.recall);
    return recalled.length === 0 ? undefined : recalledNotes(recalled, this.deps.zone);
  }
}
