import type { ChatRef } from '../surface/index.ts';
import type { Clock } from '../clock.ts';
import type { Db, WorkKind } from '../db/index.ts';
import type { Questions } from '../decisions/index.ts';
import type { Logger } from '../log/index.ts';
import { incidentQuestion, INCIDENT_QUESTION, RECOVERED } from './incident-card.ts';
import {
  attachQuestion,
  closeIncident,
  incidentsWithoutCards,
  openIncident,
  openIncidents,
  type IncidentRow,
} from './incident-store.ts';
import type { Finding, WatchedKind } from './watch.ts';

/** The points between the steps of opening an incident, for an observer (crash tests, metrics). */
export type SupervisorStage = 'incident-row' | 'card-rows';

/** Options for {@link RunSupervisor}. */
export interface RunSupervisorOptions {
  db: Db;
  kinds: readonly WatchedKind[];
  questions: Questions;
  /** `runs.stall_after`, in milliseconds per kind. */
  stallAfter: Readonly<Record<WorkKind, number>>;
  /** `runs.alert_channels`: every incident card goes there too. */
  alertChannels: readonly ChatRef[];
  clock: Clock;
  logger?: Logger;
  /** Called after each step of opening an incident has committed. */
  onStage?: (stage: SupervisorStage, incident: IncidentRow) => void | Promise<void>;
}

/** Thrown inside the card transaction when another supervisor attached cards first: rolls it back. */
class AlreadyAttached extends Error {}

/**
 * Watches every kind of long work by its progress and opens one incident per episode of trouble, with
 * cards through the outbox to the work's chat and `runs.alert_channels`. Opening is three committed
 * steps — the incident row; the question and its card rows (pending); the sends — so a crash anywhere
 * leaves a state the next sweep finishes without sending anything twice. An incident whose work moves
 * again is closed as recovered and its cards say so.
 */
export class RunSupervisor {
  readonly #o: RunSupervisorOptions;

  constructor(options: RunSupervisorOptions) {
    this.#o = options;
  }

  /** Every table the watched kinds read (the declared-kinds check). */
  watchedTables(): string[] {
    return this.#o.kinds.flatMap((kind) => kind.tables);
  }

  /** One look at everything; returns how many incidents it opened and closed as recovered. */
  async sweep(): Promise<{ opened: number; recovered: number }> {
    let opened = 0;
    let recovered = 0;
    for (const kind of this.#o.kinds) {
      // Open incidents are listed before the scan: one another sweep opens after this scan began is
      // not this sweep's to judge (its scan could not have seen that trouble, and would call it recovered).
      const open = await openIncidents(this.#o.db, kind.kind);
      const findings = await kind.scan({ now: this.#o.clock.now(), stallAfterMs: this.#o.stallAfter[kind.kind] });
      const trouble = new Map(findings.map((f) => [f.workId, f]));
      for (const incident of open) {
        const finding = trouble.get(incident.workId);
        if (finding && finding.since.getTime() === incident.since.getTime()) continue;
        if (await this.#recover(incident)) recovered += 1;
      }
      for (const finding of findings) if (await this.#open(kind, finding)) opened += 1;
    }
    // Incidents a crash left between their row and their cards.
    for (const incident of await incidentsWithoutCards(this.#o.db)) await this.#post(incident);
    return { opened, recovered };
  }

  async #open(kind: WatchedKind, finding: Finding): Promise<boolean> {
    const incident = await openIncident(this.#o.db, kind.kind, finding);
    if (!incident) return false;
    this.#o.logger?.warn(
      { incident: incident.id, kind: kind.kind, work: finding.workId, problem: finding.problem },
      `incident: ${finding.detail}`,
    );
    await this.#o.onStage?.('incident-row', incident);
    await this.#post(incident);
    return true;
  }

  /** Writes the incident's question and one pending card row per destination, once; then sends them. */
  async #post(incident: IncidentRow): Promise<void> {
    const kind = this.#o.kinds.find((k) => k.kind === incident.workKind);
    const destinations = [...new Set([...(incident.chat ? [incident.chat as ChatRef] : []), ...this.#o.alertChannels])];
    let ids: string[];
    try {
      ids = await this.#o.db.transaction(async (tx) => {
        const { question, ids } = await this.#o.questions.record(tx, {
          kind: INCIDENT_QUESTION,
          ...incidentQuestion(incident, kind?.actions ?? []),
          destinations,
          subject: { incident: incident.id },
          ...(incident.chat && { chat: incident.chat as ChatRef }),
        });
        if (!(await attachQuestion(tx, incident.id, question.id))) throw new AlreadyAttached();
        return ids;
      });
    } catch (error) {
      if (error instanceof AlreadyAttached) return;
      throw error;
    }
    await this.#o.onStage?.('card-rows', incident);
    await this.#o.questions.dispatch(ids);
  }

  async #recover(incident: IncidentRow): Promise<boolean> {
    const closed = await closeIncident(this.#o.db, incident.id, { state: 'recovered' });
    if (!closed) return false;
    this.#o.logger?.info(
      { incident: incident.id, kind: incident.workKind, work: incident.workId },
      'incident recovered',
    );
    if (closed.questionId) await this.#o.questions.close(closed.questionId, RECOVERED);
    return true;
  }
}
