import type { GateResumer, ApprovalBroker, ResumingRunner } from '../approvals/index.ts';
import type { TurnRunner } from '../agent/index.ts';
import type { AccessPolicy } from '../chat/index.ts';
import type { ChatRef } from '../surface/index.ts';
import type { ChatCommand, StatusSection } from '../commands/index.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/index.ts';
import type { JobKinds, JobQueue } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import type { OutboxDispatcher, ReplyOutbox } from '../outbox/index.ts';
import { taskCommands, taskStatus } from './commands.ts';
import { taskAwareResumer } from './resumer.ts';
import { type RecordedTask, Tasks } from './service.ts';
import { startTaskTool } from './tool.ts';
import type { ToolRegistry } from '../tools/index.ts';
import { tasksOfChat } from './store.ts';

/** What {@link createTasks} needs. */
export interface TasksDeps {
  db: Db;
  /** Where `start_task` is registered. */
  registry: ToolRegistry;
  runner: TurnRunner;
  broker: ApprovalBroker;
  jobs: JobQueue;
  kinds: JobKinds;
  outbox: OutboxDispatcher;
  replies: ReplyOutbox;
  access: AccessPolicy;
  clock: Clock;
  logger: Logger;
}

/** The tasks module: the service, its two job kinds (registered here), the resumer approvals use, its commands. */
export interface TasksModule {
  tasks: Tasks;
  /** Resumes chat questions in place and hands task questions to a worker. */
  resumer: GateResumer & ResumingRunner;
  commands: ChatCommand[];
  status: StatusSection;
}

export function createTasks({
  db,
  registry,
  runner,
  broker,
  jobs,
  kinds,
  outbox,
  replies,
  access,
  clock,
  logger,
}: TasksDeps): TasksModule {
  const tasks = new Tasks({
    db,
    runner,
    broker,
    jobs,
    outbox,
    replies,
    clock,
    logger,
    operatorName: (actor) => access.operatorOf(actor)?.name,
  });
  kinds.register(tasks.runJob).register(tasks.continueJob).register(tasks.collectJob);
  registry.register(startTaskTool(tasks));
  const port = {
    record: (tx: Db, input: Parameters<Tasks['start']>[0] & { origin: ChatRef }) => tasks.record(tx, input),
    launch: (recorded: RecordedTask) => tasks.launch(recorded),
    get: (id: string) => tasks.get(id),
    cancel: (id: string) => tasks.cancel(id),
    ofChat: (chat: ChatRef) => tasksOfChat(db, chat),
  };
  return {
    tasks,
    resumer: taskAwareResumer(runner, jobs, tasks.continueJob),
    commands: taskCommands(port),
    status: taskStatus(port),
  };
}
