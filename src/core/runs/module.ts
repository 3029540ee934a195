import { eq } from 'drizzle-orm';
import type { ChatRef } from '../surface/index.ts';
import type { Clock } from '../clock.ts';
import type { LoadedConfig } from '../config/index.ts';
import { type Db, outbox } from '../db/index.ts';
import type { Questions } from '../decisions/index.ts';
import type { SweepStep } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import { incidentsCommand, runsStatus, type RunsCommandsPort } from './commands.ts';
import { INCIDENT_QUESTION } from './incident-card.ts';
import { incidentDecidedBy, openIncidents, type IncidentRow } from './incident-store.ts';
import { RunSupervisor, type SupervisorStage } from './supervisor.ts';
import type { IncidentAction, WatchedKind } from './watch.ts';

/** What {@link createRuns} needs: the database, the questions, and each watched kind (built by the caller). */
export interface RunsDeps {
  loaded: LoadedConfig;
  db: Db;
  questions: Questions;
  kinds: readonly WatchedKind[];
  clock: Clock;
  logger: Logger;
  onStage?: (stage: SupervisorStage, incident: IncidentRow) => void | Promise<void>;
}

/**
 * The runs module: the supervisor (a step of the sweep job, every `runs.sweep_interval`), what a
 * decision on an incident card does, `/incidents` and the /status lines.
 */
export function createRuns({ loaded, db, questions, kinds, clock, logger, onStage }: RunsDeps) {
  const { runs } = loaded.config;
  const supervisor = new RunSupervisor({
    db,
    kinds,
    questions,
    clock,
    logger,
    stallAfter: runs.stall_after,
    alertChannels: runs.alert_channels as ChatRef[],
    ...(onStage && { onStage }),
  });
  // The first decision anywhere closes the incident; Retry and Cancel are carried out by the work's owner.
  // Run again for a decision a stop or a failed action left owed (decisions/decided-effects.ts), it acts
  // again on the incident this question closed: each kind's action is keyed by its work's state, so an
  // action that did happen does nothing new, and one a stop or a failure cut short is not lost.
  questions.onDecided(INCIDENT_QUESTION, async (question, actor) => {
    const id = (question.subject as { incident?: string } | null)?.incident;
    const incident =
      id && (await incidentDecidedBy(db, id, { id: question.id, decision: question.decision ?? 'dismiss' }));
    if (!incident || question.decision === 'dismiss') return;
    const kind = kinds.find((k) => k.kind === incident.workKind);
    const action = question.decision as IncidentAction;
    if (!kind?.actions.includes(action)) return;
    const outcome = await kind.act(action, incident.workId);
    logger.info(
      { incident: incident.id, decision: action, by: actor.displayName ?? actor.id, outcome },
      'incident decided',
    );
  });
  const port: RunsCommandsPort = {
    openIncidents: () => openIncidents(db),
    unknownDeliveries: () =>
      db.select({ id: outbox.id, destination: outbox.destination }).from(outbox).where(eq(outbox.state, 'unknown')),
  };
  const sweep: SweepStep = { name: 'runs', run: () => supervisor.sweep() };
  return { supervisor, sweep, commands: [incidentsCommand(port)], status: runsStatus(port) };
}
