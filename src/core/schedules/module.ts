import type { AccessPolicy } from '../chat/index.ts';
import type { ChatRef } from '../surface/index.ts';
import type { Clock } from '../clock.ts';
import type { ChatCommand, StatusSection } from '../commands/index.ts';
import type { LoadedConfig } from '../config/index.ts';
import type { Db } from '../db/index.ts';
import type { JobKinds, JobQueue } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import type { OutboxDispatcher } from '../outbox/index.ts';
import type { Tasks } from '../tasks/index.ts';
import type { ToolRegistry } from '../tools/index.ts';
import { scheduleCommands, scheduleStatus } from './commands.ts';
import { Schedules, type SchedulesOptions } from './service.ts';
import { scheduleTools } from './tools.ts';

/** What {@link createSchedules} needs. */
export interface SchedulesDeps {
  loaded: LoadedConfig;
  db: Db;
  jobs: JobQueue;
  kinds: JobKinds;
  outbox: OutboxDispatcher;
  tasks: Pick<Tasks, 'start'>;
  registry: ToolRegistry;
  access: AccessPolicy;
  /** The requester's remembered notes holding some words (the memory module; absent when memory is off). */
  notesAbout?: SchedulesOptions['notesAbout'];
  clock: Clock;
  logger: Logger;
}

export interface SchedulesModule {
  schedules: Schedules;
  commands: ChatCommand[];
  status: StatusSection;
}

/** Reminders and cron jobs: the service, its job kinds and tools (registered here), its commands. */
export function createSchedules({
  loaded,
  db,
  jobs,
  kinds,
  outbox,
  tasks,
  registry,
  access,
  notesAbout,
  clock,
  logger,
}: SchedulesDeps): SchedulesModule {
  const schedules = new Schedules({
    db,
    jobs,
    outbox,
    clock,
    logger,
    zone: loaded.config.time.zone,
    startTask: (input) => tasks.start(input),
    operatorName: (actor) => access.operatorOf(actor)?.name,
    ...(notesAbout && { notesAbout }),
  });
  kinds.register(schedules.fireJob).register(schedules.cronJob);
  for (const tool of scheduleTools(schedules)) registry.register(tool);
  const port = {
    recordReminder: (tx: Db, input: Parameters<Schedules['remind']>[0]) => schedules.recordReminder(tx, input),
    anchor: (input: Parameters<Schedules['anchor']>[0]) => schedules.anchor(input),
    recordCron: (tx: Db, input: Parameters<Schedules['addCron']>[0]) => schedules.recordCron(tx, input),
    arm: (row: Parameters<Schedules['arm']>[0]) => schedules.arm(row),
    cancel: (id: string) => schedules.cancel(id),
    get: (id: string) => schedules.get(id),
    list: (chat: ChatRef) => schedules.list(chat),
    format: (at: Date) => schedules.format(at),
  };
  return { schedules, commands: scheduleCommands(port), status: scheduleStatus(port) };
}
