// Scheduled jobs: one-shot reminders and recurring (cron) tasks. The row is the truth and is written
// first; a BullMQ delayed job (reminders) or job scheduler (cron, keyed by the row id) makes it happen;
// a reminder fires by compare-and-set, so never twice, and one due while Kazma was down fires once at
// start, marked late.
import { z } from 'zod';
import type { ChatRef, Actor } from '../surface/index.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/index.ts';
import { storedActor } from '../decisions/index.ts';
import { KazmaError } from '../errors.ts';
import type { JobKind, JobQueue } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import { type OutboxDispatcher, enqueueOutbox } from '../outbox/index.ts';
import {
  countFiring,
  getSchedule,
  insertSchedule,
  newScheduleId,
  scheduledJobs,
  settleSchedule,
  type ScheduleRow,
} from './store.ts';
import { anchorWhen, type Anchoring, type DatedNote } from './anchor.ts';
import { parseWhen } from './when.ts';
import { formatInZone } from './zoned.ts';
import type { CronInput, ReminderInput } from './inputs.ts';

/** Options for {@link Schedules}. */
export interface SchedulesOptions {
  db: Db;
  jobs: JobQueue;
  outbox: OutboxDispatcher;
  /** Starts the task a cron job runs (the tasks module). */
  startTask(input: { goal: string; origin: ChatRef; requester: Actor }): Promise<unknown>;
  operatorName: (actor: Actor) => string | undefined;
  /** The requester's remembered notes that hold `words` (the memory module); absent: memory is off. */
  notesAbout?: (requester: Actor, chat: ChatRef, words: string) => Promise<DatedNote[]>;
  /** `time.zone`. */
  zone: string;
  clock: Clock;
  logger?: Logger;
}

/** Attempts of a firing: 1 s, then doubling, about two minutes in all. */
const RIDE_OUT_OUTAGES = { attempts: 8, backoffMs: 1_000 } as const;

/** A reminder that fires this long after it was due says it is late. */
const LATE_AFTER_MS = 60_000;

/** A cron pattern BullMQ refused, or another reason a schedule could not be made. */
export class ScheduleError extends KazmaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('schedule_invalid', message, options);
  }
}

export class Schedules {
  readonly #o: SchedulesOptions;
  readonly fireJob: JobKind<{ scheduleId: string }>;
  readonly cronJob: JobKind<{ scheduleId: string }>;

  constructor(options: SchedulesOptions) {
    this.#o = options;
    const payload = z.object({ scheduleId: z.string().min(1) });
    this.fireJob = {
      name: 'schedule.fire',
      lane: 'schedules',
      payload,
      handle: ({ scheduleId }) => this.fire(scheduleId),
      // A database outage at the due time: retried (about two minutes in all) rather than lost; a longer
      // one is caught when the database is back (restore, src/assembly/restore.ts). Firing is one
      // compare-and-set, so a retry after a success does nothing.
      ...RIDE_OUT_OUTAGES,
    };
    this.cronJob = {
      name: 'schedule.cron',
      lane: 'schedules',
      payload,
      handle: ({ scheduleId }) => this.runCron(scheduleId),
      ...RIDE_OUT_OUTAGES,
    };
  }

  /** `/remind <when> <text>`: reads the time in `time.zone`, records the reminder, and schedules it. */
  async remind(input: ReminderInput): Promise<ScheduleRow> {
    return this.arm(await this.recordReminder(this.#o.db, input));
  }

  /** Anchors a time that names a remembered thing ("the day before my exam") to the requester's memory. */
  anchor(input: { words: string; chat: ChatRef; requester: Actor }): Promise<Anchoring> {
    const about = this.#o.notesAbout;
    const notesAbout = about && ((words: string) => about(input.requester, input.chat, words));
    return anchorWhen(input.words, { now: this.#o.clock.now(), zone: this.#o.zone, ...(notesAbout && { notesAbout }) });
  }

  /**
   * {@link remind}'s row, written on `db` (a command's transaction); {@link arm} then schedules it. `from`
   * (where an anchored date came from) is kept with the words.
   */
  async recordReminder(db: Db, input: ReminderInput): Promise<ScheduleRow> {
    const when = await parseWhen(input.words, { now: this.#o.clock.now(), zone: this.#o.zone });
    if (!when.rest)
      throw new ScheduleError(`what should I remind you of at ${this.format(when.at)}? Write it after the time`);
    return insertSchedule(db, {
      id: newScheduleId(),
      kind: 'reminder',
      chat: input.chat,
      requester: this.#stored(input.requester),
      text: when.rest,
      dueAt: when.at,
      zone: this.#o.zone,
      words: input.from ? `${when.words} (${input.from})` : when.words,
    });
  }

  /** `/cron add "<pattern>" <prompt>`: a task runs the prompt on every match of the pattern (in `time.zone`). */
  async addCron(input: CronInput): Promise<ScheduleRow> {
    return this.arm(await this.recordCron(this.#o.db, input));
  }

  /** {@link addCron}'s row, written on `db` (a command's transaction); {@link arm} then schedules it. */
  async recordCron(db: Db, input: CronInput): Promise<ScheduleRow> {
    return insertSchedule(db, {
      id: newScheduleId(),
      kind: 'cron',
      chat: input.chat,
      requester: this.#stored(input.requester),
      text: input.prompt,
      pattern: input.pattern,
      zone: this.#o.zone,
      words: input.pattern,
    });
  }

  /**
   * Gives a recorded schedule its job, keyed by the row id (so arming it again makes no second job), and
   * returns the row. A cron pattern BullMQ refuses cancels the row and throws ScheduleError.
   */
  async arm(row: ScheduleRow): Promise<ScheduleRow> {
    if (row.kind === 'reminder') {
      await this.#enqueueFire(row);
      return row;
    }
    try {
      await this.#o.jobs.enqueue(
        this.cronJob,
        { scheduleId: row.id },
        { jobId: row.id, repeat: { pattern: row.pattern!, tz: row.zone } },
      );
    } catch (error) {
      await settleSchedule(this.#o.db, row.id, 'cancelled');
      throw new ScheduleError(
        `"${row.pattern}" is not a cron pattern I can use ` +
          `(${error instanceof Error ? error.message : String(error)}); e.g. "0 9 * * 1-5" for 09:00 on weekdays`,
        { cause: error },
      );
    }
    return row;
  }

  /**
   * The `schedule.fire` job: a reminder's time came. Once: the compare-and-set and its message row are one transaction.
   */
  async fire(id: string): Promise<void> {
    const now = this.#o.clock.now();
    const ids = await this.#o.db.transaction(async (tx) => {
      const row = await settleSchedule(tx, id, 'fired');
      if (row?.kind !== 'reminder') return [];
      const late = row.dueAt && now.getTime() - row.dueAt.getTime() > LATE_AFTER_MS;
      const text =
        `⏰ Reminder: ` +
        `${row.text}${late ? `\n(late: it was due at ${this.format(row.dueAt!)}; Kazma could not send it then)` : ''}`;
      return enqueueOutbox(tx, [
        { kind: 'message', destination: row.chat, payload: { text }, owner: { kind: 'schedule', id } },
      ]);
    });
    await this.#o.outbox
      .dispatch(ids)
      .catch((error: unknown) =>
        this.#o.logger?.warn({ err: error, ids }, 'outbox dispatch failed; the sweep will retry'),
      );
  }

  /** The `schedule.cron` job: one firing of a recurring job starts its task (the task posts its answer). */
  async runCron(id: string): Promise<void> {
    const row = await countFiring(this.#o.db, id);
    if (!row) return this.#o.jobs.forget(this.cronJob, id); // cancelled: make sure the schedule is gone too
    await this.#o.startTask({
      goal: row.text,
      origin: row.chat as ChatRef,
      requester: { platform: row.requester.platform, id: row.requester.id },
    });
  }

  /** Cancels a scheduled job; false when it is not scheduled (fired, cancelled, unknown). */
  async cancel(id: string): Promise<boolean> {
    const row = await settleSchedule(this.#o.db, id, 'cancelled');
    if (!row) return false;
    await this.#o.jobs.forget(row.kind === 'cron' ? this.cronJob : this.fireJob, id);
    return true;
  }

  get(id: string): Promise<ScheduleRow | undefined> {
    return getSchedule(this.#o.db, id);
  }

  list(chat?: ChatRef): Promise<ScheduleRow[]> {
    return scheduledJobs(this.#o.db, chat);
  }

  /**
   * At start: every scheduled job has its BullMQ job (Redis may have lost it), and a reminder that fell
   * due while Kazma was down fires now (its job id is the row id, so one already queued is not doubled).
   */
  async recover(): Promise<number> {
    const rows = await scheduledJobs(this.#o.db);
    for (const row of rows) {
      if (row.kind === 'reminder') await this.#enqueueFire(row);
      else
        await this.#o.jobs.enqueue(
          this.cronJob,
          { scheduleId: row.id },
          { jobId: row.id, repeat: { pattern: row.pattern!, tz: row.zone } },
        );
    }
    return rows.length;
  }

  /** `Tue 24 Dec 2026, 18:00 (Asia/Kuwait)`. */
  format(at: Date): string {
    return formatInZone(at, this.#o.zone);
  }

  async #enqueueFire(row: ScheduleRow): Promise<void> {
    await this.#o.jobs.enqueue(
      this.fireJob,
      { scheduleId: row.id },
      { jobId: row.id, delayMs: Math.max(0, row.dueAt!.getTime() - this.#o.clock.now().getTime()) },
    );
  }

  #stored(actor: Actor) {
    return storedActor(actor, this.#o.operatorName(actor));
  }
}
