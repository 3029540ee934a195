// What the operators' web page needs from the core, as plain shapes. src/assembly/ui.ts builds it from the
// modules' faces, so every action here is the one a chat command or a card tap runs: a decision goes
// through the approvals decider (first decision wins), a cancel through Tasks/Schedules, a switch through
// the store `/config tools toggle` writes.
import type { DecideOutcome, Gate } from '../../../core/approvals/index.ts';
import type { Decision } from '../../../core/db/index.ts';
import type { Actor, Card } from '../../../core/surface/index.ts';

/** One attempt in the decision audit trail (table `decision_audit`). */
export interface AuditView {
  /** Later attempts have larger ids: a page's cursor. */
  id: number;
  subjectId: string;
  who?: string;
  platform?: string;
  decision?: string;
  outcome: string;
  detail?: string;
  at: Date;
}

export interface TaskView {
  id: string;
  goal: string;
  state: string;
  error?: string;
  createdAt: Date;
}

export interface ScheduleView {
  id: string;
  kind: string;
  /** The reminder's text, or the cron job's prompt. */
  text: string;
  /** When: the due instant (a reminder) or the cron pattern and zone. */
  when: string;
  state: string;
}

export interface IncidentView {
  id: string;
  kind: string;
  workId: string;
  problem: string;
  detail: string;
  openedAt: Date;
  /** The incident's question: its options are the card's buttons (Retry / Cancel / Dismiss). */
  questionId?: string;
  options: Array<{ id: string; label: string }>;
}

export interface ToolView {
  name: string;
  on: boolean;
  tier: string;
}

export interface ServerView {
  name: string;
  on: boolean;
  state: string;
  transport: string;
  toolCount: number;
  lastError?: string;
}

/**
 * A skill folder and its verdict: verified (signed with this install's secret), unsigned (allowed by
 * name), refused or failed.
 */
export interface SkillStateView {
  name: string;
  status: string;
  /** Why it was refused or failed, or the warning an unsigned one carries. */
  note?: string;
  on: boolean;
  tools: string[];
}

/**
 * An Agent Skill (a SKILL.md folder, `kazma agent-skills`) and its verdict: verified (sealed by this install,
 * unchanged), unsigned (no seal), refused (changed since sealed, or another key) or invalid (malformed).
 */
export interface AgentSkillView {
  name: string;
  status: string;
  /** Whether the model is offered it (verified or unsigned). */
  offered: boolean;
  description?: string;
  /** What it was installed from (its seal), else undefined. */
  source?: string;
  /** The folder it was found in. */
  dir: string;
  /** Why it was refused or is invalid, or the warning an unsigned one carries. */
  note?: string;
}

/** The "add an MCP server" form's fields as sent (a hand-made request may carry more than the form has). */
export interface ServerForm {
  name: string;
  url: string;
  transport: string;
  bearer: string;
  /** `Name: value`. */
  header: string;
  trust: string;
  /** Not on the form: a stdio server's command, which the page refuses. */
  command: string;
}

/** A setting saved at run time over kazma.yaml's key (table `settings`), its value masked. */
export interface SavedSettingView {
  key: string;
  value: unknown;
  by?: string;
  at: Date;
}

/** One change `/config` or this page made (table `config_audit`), masked. */
export interface ConfigChangeView {
  /** The operator's name, else the person's display name or id. */
  who: string;
  platform: string;
  chat: string;
  command: string;
  detail?: string;
  at: Date;
}

/** The answer to an action taken on the page: what happened, in words for the operator. */
export type ActionResult = { ok: true; message: string } | { ok: false; message: string };

export interface UiCore {
  /** Gates in `states`, oldest first, at most `limit`, after skipping `offset`; and how many there are in all. */
  gatePage(filter: { states: Gate['state'][]; limit: number; offset?: number }): Promise<{
    gates: Gate[];
    total: number;
  }>;
  /** The card every chat shows for this gate (its arguments masked and made visible, never cut). */
  card(gate: Gate): Card;
  /** Why `actor` may not decide `gate`, or undefined when they may. */
  refusal(gate: Gate, actor: Actor): string | undefined;
  /** THE decision, as a tap or the approvals API makes it. */
  decide(input: { gateId: string; decision: Decision; actor: Actor; reason?: string }): Promise<DecideOutcome>;
  /**
   * Newest attempts first, at most `limit`: the newest older than `before`, or the oldest newer than
   * `after` (an attempt's id), or the newest of all.
   */
  audit(filter: {
    limit: number;
    outcome?: string;
    subjectId?: string;
    before?: number;
    after?: number;
  }): Promise<AuditView[]>;
  tasks(): Promise<TaskView[]>;
  cancelTask(id: string): Promise<ActionResult>;
  schedules(): Promise<ScheduleView[]>;
  cancelSchedule(id: string): Promise<ActionResult>;
  incidents(): Promise<IncidentView[]>;
  /** A tap on the incident card's button, through the question's first-decision-wins decision. */
  answer(input: { questionId: string; option: string; actor: Actor }): Promise<ActionResult>;
  tools(): ToolView[];
  setTool(input: { name: string; on: boolean; actor: Actor }): Promise<ActionResult>;
  servers(): Promise<ServerView[]>;
  /** `kazma mcp add`'s checks, then saved as the CLI saves it: remote (http/sse) servers only. */
  addServer(input: { form: ServerForm; actor: Actor }): Promise<ActionResult>;
  /** Switches an MCP server on or off: the switch `/config tools toggle <server>` sets (saved, followed everywhere). */
  setServer(input: { name: string; on: boolean; actor: Actor }): Promise<ActionResult>;
  /** `kazma mcp remove` for a remote server (it stays removed until added again); a stdio server is refused. */
  removeServer(input: { name: string; actor: Actor }): Promise<ActionResult>;
  /** Every skill folder found at start, with its verification verdict. */
  skills(): SkillStateView[];
  /** Every Agent Skill found (a scan at most a few seconds old), with its verdict. */
  agentSkills(): AgentSkillView[];
  /** The configuration as loaded, with what `/config` changed since, secrets masked. */
  settings(): unknown;
  /** What run time changed: every saved setting, and the newest `limit` changes with who made them. */
  runtime(limit: number): Promise<{ saved: SavedSettingView[]; changes: ConfigChangeView[] }>;
  /** Calls `listener` whenever the outbox dispatches (a card posted or edited anywhere); returns the unsubscriber. */
  changes(listener: () => void): () => void;
}
