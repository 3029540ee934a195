// Run to an interrupt with one saver, then resume BY INTERRUPT ID through a brand-new saver instance
// (a new pool, as after a restart): the approval path the gate registry relies on.
import { Command, INTERRUPT, type Interrupt } from '@langchain/langgraph';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { createCheckpointer } from '../../../src/core/agent/checkpoint/checkpointer.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { approvalGraph, texts } from './graphs.ts';

describeEachBackend('resume by interrupt id', (db) => {
  /** Runs the graph to its interrupt on a saver that is closed straight after; returns the interrupt. */
  async function runToInterrupt(thread_id: string): Promise<Interrupt> {
    const first = await createCheckpointer(db());
    try {
      const out = await approvalGraph(first.saver).invoke(
        { messages: [{ role: 'user', content: 'clean up' }] },
        { configurable: { thread_id } },
      );
      const [pending] = (out as { [INTERRUPT]?: Interrupt[] })[INTERRUPT] ?? [];
      expect(pending?.id).toMatch(/^[0-9a-f]{32}$/);
      expect(pending?.value).toEqual({ question: 'delete /tmp/x?' });
      return pending!;
    } finally {
      await first.close();
    }
  }

  it('resumes exactly the interrupt it names, from a new saver instance', async () => {
    const thread_id = randomUUID();
    const pending = await runToInterrupt(thread_id);
    const second = await createCheckpointer(db());
    try {
      const graph = approvalGraph(second.saver);
      const config = { configurable: { thread_id } };
      const paused = await graph.getState(config);
      expect(paused.next).toEqual(['ask']);
      expect(paused.tasks[0]?.interrupts[0]?.id).toBe(pending.id);

      const done = await graph.invoke(
        new Command({ resume: { [pending.id!]: { approved: true, by: 'maya' } } }),
        config,
      );
      expect(texts(done.messages)).toEqual(['clean up', 'approved=true by maya']);
      expect((await graph.getState(config)).next).toEqual([]);
    } finally {
      await second.close();
    }
  });

  // Not an error by default in LangGraph 1.7.3: the node runs again and raises the same question. So
  // "answered exactly once" must come from the gate row's compare-and-set, never from LangGraph.
  it('an id that is not pending resumes nothing and re-raises the same interrupt', async () => {
    const thread_id = randomUUID();
    const pending = await runToInterrupt(thread_id);
    const second = await createCheckpointer(db());
    try {
      const graph = approvalGraph(second.saver);
      const out = await graph.invoke(new Command({ resume: { ['0'.repeat(32)]: { approved: true, by: 'eve' } } }), {
        configurable: { thread_id },
      });
      expect((out as { [INTERRUPT]?: Interrupt[] })[INTERRUPT]?.map((i) => i.id)).toEqual([pending.id]);
      expect(texts(out.messages)).toEqual(['clean up']);
    } finally {
      await second.close();
    }
  });
});
