// Kazma keys jobs by its own ids (an outbox row's id, a task's), and some hold ':' — a command's reply is
// `reply_command:telegram:<event>:1`. BullMQ refuses a custom job id with ':' in it ("Custom Id cannot
// contain :"), which left such a reply pending for good once it had to wait for the worker. The driver
// maps every id to one BullMQ accepts, the same way each time, so a job is still found (and forgotten)
// by the id Kazma gave it.
import { z } from 'zod';
import { afterEach, expect, it } from 'vitest';
import { JobKinds, type JobKind } from '../../src/core/jobs/port.ts';
import { createLogger } from '../../src/core/log/index.ts';
import { BullJobDriver } from '../../src/jobs/driver.ts';
import { eventually } from '../helpers/eventually.ts';
import { TEST_REDIS, testQueuePrefix } from '../helpers/outbox.ts';

const logger = createLogger({ level: 'silent', pretty: false });
const opened: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const c of opened.splice(0).reverse()) await c.close();
});

it('a job whose id holds ":" (a command reply’s outbox row) is queued, runs once, and can be forgotten', async () => {
  const ran: string[] = [];
  const kind: JobKind<{ id: string }> = {
    name: 'deliver',
    lane: 'outbox',
    payload: z.object({ id: z.string() }),
    handle: async ({ id }) => void ran.push(id),
  };
  const driver = new BullJobDriver({
    connection: TEST_REDIS,
    prefix: testQueuePrefix('job-ids'),
    kinds: new JobKinds().register(kind),
    logger,
  });
  opened.push(driver);
  const id = 'reply_command:telegram:0c5aa23b:1';
  await driver.enqueue(kind, { id }, { jobId: id });
  await driver.enqueueAll(kind, [{ payload: { id }, options: { jobId: id } }]); // the same job: not twice
  await driver.forget(kind, 'reply_command:other:1');
  driver.startWorkers(['outbox']);
  await eventually(
    () => ran,
    (r) => r.length > 0,
    'the job run',
  );
  expect(ran).toEqual([id]);
});
