/**
 * Every code a {@link KazmaError} can carry: a closed set, so a test, a log query or an API client can
 * match on a code knowing it exists. A new failure adds its code here (grouped by the first word).
 */
export type KazmaErrorCode =
  | 'action_prefix_duplicate'
  | 'agent_skill_install_failed'
  | 'agent_skill_invalid'
  | 'agent_skill_source_refused'
  | 'cas_unknown_column'
  | 'copy_target_not_empty'
  | 'chat_ref_invalid'
  | 'checkpointer_busy'
  | 'checkpointer_no_url'
  | 'checkpointer_not_set_up'
  | 'command_duplicate'
  | 'command_undeclared_write'
  | 'config_invalid'
  | 'data_dir_lock_failed'
  | 'data_dir_locked'
  | 'data_dir_unusable'
  | 'database_open_failed'
  | 'database_unconfigured'
  | 'database_unreachable'
  | 'discord_api'
  | 'discord_gateway'
  | 'discord_not_ready'
  | 'discord_rate_limited'
  | 'discord_unauthorized'
  | 'discord_unreachable'
  | 'effect_args_mismatch'
  | 'effect_receipt_state'
  | 'effect_unknown'
  | 'embeddings_failed'
  | 'guard_list_invalid'
  | 'http_listen_failed'
  | 'illegal_gate_transition'
  | 'illegal_task_transition'
  | 'inbound_event_invalid'
  | 'inbox_unavailable'
  | 'job_kind_duplicate'
  | 'job_kind_unknown'
  | 'mcp_command_not_found'
  | 'mcp_secret_unresolved'
  | 'mcp_start_failed'
  | 'mcp_stdio_refused'
  | 'mcp_unknown_server'
  | 'model_no_tools'
  | 'model_not_configured'
  | 'model_unavailable'
  | 'outbox_edit_not_ready'
  | 'outbox_not_next'
  | 'outbox_send_taken_over'
  | 'redis_start_failed'
  | 'redis_unavailable'
  | 'redis_unreachable'
  | 'refused_before_effect'
  | 'schedule_invalid'
  | 'skill_files_invalid'
  | 'skill_hub_failed'
  | 'skill_manifest_invalid'
  | 'skill_secret_missing'
  | 'skill_unknown'
  | 'slack_api'
  | 'slack_double_ack'
  | 'slack_rate_limited'
  | 'slack_unauthorized'
  | 'slack_unreachable'
  | 'surface_duplicate'
  | 'surface_missing'
  | 'telegram_api'
  | 'telegram_rate_limited'
  | 'telegram_unauthorized'
  | 'telegram_unreachable'
  | 'thread_busy'
  | 'tool_definition_invalid'
  | 'tool_duplicate'
  | 'turn_interrupted'
  | 'vault_disabled'
  | 'vault_name_invalid'
  | 'vault_record_tampered'
  | 'vault_unknown_name'
  | 'vault_wrong_key'
  | 'web_fetch_failed'
  | 'when_invalid'
  | 'workspace_changed';

/**
 * Base of every error Kazma raises on purpose. `code` is stable (tests, logs and the HTTP API match on
 * it); the message says what happened and what to do.
 */
export class KazmaError extends Error {
  readonly code: KazmaErrorCode;
  constructor(code: KazmaErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * The configuration file (or the environment it reads) is wrong. `issues` name each key path and the
 * reason; `file` is the file as the person named it (default kazma.yaml); `headline` replaces the whole
 * message when one line says it all ("no such file: …").
 */
export class ConfigError extends KazmaError {
  readonly issues: readonly string[];
  constructor(issues: readonly string[], options: { file?: string; headline?: string } = {}) {
    super(
      'config_invalid',
      options.headline ?? `${options.file ?? 'kazma.yaml'} is not valid:\n  ${issues.join('\n  ')}`,
    );
    this.issues = issues;
  }
}

/** Something Kazma needs at start (database, Redis, a lock) is not available; the message says how to fix it. */
export class StartupError extends KazmaError {
  constructor(code: KazmaErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * A platform refused a delivery for good — the bot was blocked or removed, the chat is gone, it may not
 * write there — as opposed to a refusal worth retrying (a rate limit, an outage). Adapters say which on
 * their own error classes (`permanent`); the outbox marks such a row failed instead of retrying it.
 */
export function isPermanentRefusal(error: unknown): boolean {
  return (error as { permanent?: unknown } | null)?.permanent === true;
}
