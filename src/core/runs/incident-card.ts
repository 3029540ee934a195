import type { QuestionOption, Problem, WorkKind } from '../db/index.ts';
import type { IncidentRow } from './incident-store.ts';
import type { IncidentAction } from './watch.ts';

/** The question kind incidents are asked as; the runs module acts on its answers. */
export const INCIDENT_QUESTION = 'incident';

const KIND_WORDS: Record<WorkKind, string> = {
  task: 'Background task',
  turn: 'Chat turn',
  scheduled: 'Scheduled job',
  gate: 'Approval',
  outbox: 'Delivery',
  mcp: 'MCP server',
};
const PROBLEM_WORDS: Record<Problem, string> = {
  stalled: 'is making no progress',
  stuck: 'is stuck',
  failed: 'failed',
};
const OPTIONS: Record<IncidentAction | 'dismiss', QuestionOption> = {
  retry: { id: 'retry', label: 'Retry', style: 'primary' },
  cancel: { id: 'cancel', label: 'Cancel', style: 'danger' },
  dismiss: { id: 'dismiss', label: 'Dismiss', style: 'secondary' },
};

/** What an incident card says and offers: the same words and buttons on every platform. */
export function incidentQuestion(incident: IncidentRow, actions: readonly IncidentAction[]) {
  return {
    title: `⚠️ ${KIND_WORDS[incident.workKind]} ${incident.workId} ${PROBLEM_WORDS[incident.problem]}`,
    fields: [
      { label: 'What', value: incident.detail },
      { label: 'Since', value: `${incident.since.toISOString().replace('T', ' ').slice(0, 16)} UTC` },
      { label: 'Incident', value: incident.id },
    ],
    options: [...actions.map((a) => OPTIONS[a]), OPTIONS.dismiss],
  };
}

/** The line an incident's cards end with when it recovered without anyone deciding. */
export const RECOVERED = 'Recovered: the work is moving again';
