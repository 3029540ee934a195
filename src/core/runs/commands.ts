import type { ChatRef } from '../surface/index.ts';
import type { ChatCommand, StatusSection } from '../commands/index.ts';
import type { IncidentRow } from './incident-store.ts';

/** What the runs commands read. */
export interface RunsCommandsPort {
  openIncidents(): Promise<IncidentRow[]>;
  /** Deliveries whose fate is unknown (the process stopped while sending; never re-sent blindly). */
  unknownDeliveries(): Promise<Array<{ id: string; destination: string }>>;
}

/** One line per incident, for /incidents and `kazma doctor`. */
export function incidentLine(incident: IncidentRow): string {
  const since = incident.since.toISOString().replace('T', ' ').slice(0, 16);
  return (
    `• ${incident.id} — ${incident.workKind} ${incident.workId} ${incident.problem} since ${since} UTC: ` +
    `${incident.detail}`
  );
}

/**
 * `/incidents`: open incidents. An operator sees every one (they answer the cards); anyone else sees
 * the incidents of work that started in their own chat.
 */
export function incidentsCommand(port: RunsCommandsPort): ChatCommand {
  return {
    name: 'incidents',
    summary: 'list open incidents (background work that stalled, got stuck or failed)',
    serial: false,
    async run(ctx) {
      const all = await port.openIncidents();
      const shown = ctx.role === 'operator' ? all : all.filter((i) => i.chat === ctx.chat);
      if (shown.length === 0) return ctx.reply('No open incidents: all background work is moving.');
      return ctx.reply(
        [
          `Open incidents (${shown.length}):`,
          ...shown.slice(0, 20).map(incidentLine),
          ...(shown.length > 20 ? [`…and ${shown.length - 20} more.`] : []),
        ].join('\n'),
      );
    },
  };
}

/** The /status lines: open incidents, and deliveries whose fate is unknown. */
export function runsStatus(port: RunsCommandsPort): StatusSection {
  return {
    name: 'incidents',
    async lines(chat: ChatRef) {
      const [incidents, unknown] = await Promise.all([port.openIncidents(), port.unknownDeliveries()]);
      const here = incidents.filter((i) => i.chat === chat).length;
      const lines = [
        'incidents: ' +
          (incidents.length === 0
            ? 'none open'
            : `${incidents.length} open${here > 0 ? ` (${here} from this chat)` : ''} — /incidents lists them`),
      ];
      if (unknown.length > 0) {
        const examples = unknown
          .slice(0, 3)
          .map((u) => `${u.id} to ${u.destination}`)
          .join(', ');
        lines.push(
          `delivery unknown: ${unknown.length} message(s) — the process stopped while sending, ` +
            `so they were not sent again (${examples}${unknown.length > 3 ? ', …' : ''})`,
        );
      }
      return lines;
    },
  };
}
