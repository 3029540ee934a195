// What assembleKazma takes and gives back: the options a caller (src/main.ts, a test harness) may set, and
// the running parts it may reach.
import type { HttpServer } from '../adapters/http/index.ts';
import type { Clock } from '../core/clock.ts';
import type { LoadedConfig } from '../core/config/index.ts';
import type { Database } from '../core/db/index.ts';
import type { KazmaParts } from '../core/kazma-core.ts';
import type { Logger } from '../core/log/index.ts';
import type { IncidentRow, SupervisorStage } from '../core/runs/index.ts';
import type { InboundEvent, Surface } from '../core/surface/index.ts';
import type { ToolDefinition } from '../core/tools/index.ts';
import type { RedisHandle } from '../jobs/index.ts';
import type { PlatformFactory, PlatformTuning, RunningPlatform } from '../platforms.ts';

/** Options for assembleKazma; everything but `loaded` and `logger` has a default. */
export interface AssembleOptions {
  loaded: LoadedConfig;
  logger: Logger;
  /** Tools registered after the built-ins (plugins; a test's own tools). */
  tools?: readonly ToolDefinition[];
  /** Surfaces attached before start-up recovery (the console, a test's recording surface). */
  surfaces?: readonly Surface[];
  /** A database already open and migrated (tests); it is not closed at stop. Default: the configured one. */
  database?: Database;
  /**
   * Begun by src/main.ts while this module loads: the configured database opening (closed at stop), the
   * platform adapters loading.
   */
  early?: { database?: Promise<Database>; platforms?: Promise<PlatformFactory[]> };
  /**
   * `kazma chat` beside a `kazma start` on the same data_dir: the embedded database through that process's
   * socket. The caller also leaves the platforms to that process (they would take its connections over).
   */
  besideOwner?: boolean;
  /**
   * What a taken `http.port` means: `stop` (default) fails naming it; `free-port` (`kazma chat`) serves
   * on any free port unless a platform receives its events on http.port (HttpServer decides).
   */
  httpPortTaken?: 'stop' | 'free-port';
  /** A Redis already answering (tests); it is not closed at stop. Default: `redis.url`, else local, else private. */
  redis?: RedisHandle;
  /** BullMQ key prefix. Default: from the database's identity, so processes sharing a database share queues. */
  queuePrefix?: string;
  clock?: Clock;
  /** Adapter timings an operator or a test tunes. */
  tuning?: PlatformTuning;
  /**
   * `all` (`kazma start`): platforms, HTTP, every job lane. `worker` (`kazma worker`): background tasks
   * only — no platform connections, HTTP for health only, no chat recovery; cards and replies it writes
   * are delivered by the processes that hold the platforms.
   */
  role?: 'all' | 'worker';
  /** Told after each committed step of opening an incident (crash tests stop a process between them). */
  onIncidentStage?: (stage: SupervisorStage, incident: IncidentRow) => void | Promise<void>;
  /**
   * Told when an event that needs no chat order (a command such as /task) has run, before its inbox row
   * ends (crash tests stop a process between the two).
   */
  onEventWorked?: (event: InboundEvent) => void | Promise<void>;
}

/** A running Kazma: its parts, for the CLI (signals) and for tests that run it in-process. */
export interface RunningKazma {
  readonly loaded: LoadedConfig;
  readonly database: Database;
  readonly redis: RedisHandle;
  readonly http: HttpServer;
  readonly core: KazmaParts;
  readonly platforms: readonly RunningPlatform[];
  /** Graceful stop: intake first, then running work (bounded by shutdown.timeout), then connections. */
  stop(): Promise<void>;
}
