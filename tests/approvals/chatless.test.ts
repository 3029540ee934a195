// A question from work with no chat (a background task's run) is asked in approvals.channels only,
// decided there, and never pretends to come from a console named "local".
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalGates } from '../../src/core/db/schema/approvals.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

let k: Assembled | undefined;
afterEach(async () => {
  await k?.close();
  k = undefined;
});

describe('a question with no origin chat', () => {
  it('goes to approvals.channels only, keeps no chat, and a tap there decides it', async () => {
    k = await startAssembled({
      access: { operators: [{ name: 'ana', slack: 'U1' }] },
      approvals: { channels: ['slack:C1'] },
    });
    const slack = new RecordingSurface('slack');
    k.kazma.core.attachSurface(slack);
    const gate = await k.kazma.core.approvals.open({
      threadId: `task-${randomUUID()}`,
      interruptId: 'i1',
      requester: { platform: 'api', id: 'ana' },
      call: {
        kind: 'tool_approval',
        callId: 'c1',
        tool: 'launch',
        args: { target: 'venus' },
        tier: 'danger',
        reason: 'test',
      },
    });
    await k.settled();
    expect(gate.chat).toBeUndefined();
    const [row] = await k.database.db.select().from(approvalGates);
    expect(row!.originChat).toBeNull();
    expect(slack.cards.map((c) => c.ref.chat)).toEqual(['slack:C1']);
    expect(slack.cards[0]!.card.fields.find((f) => f.label === 'Asked by')!.value).toBe('ana in a background task');

    const deny = slack.cards[0]!.card.buttons.find((b) => b.id.endsWith(':deny'))!.id;
    await k.kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'slack',
      chat: 'slack:C1',
      actor: { platform: 'slack', id: 'U1' },
      actionId: deny,
    });
    await k.settled();
    const decided = await k.kazma.core.approvals.get(gate.gateId);
    expect(decided).toMatchObject({ decision: 'deny', decidedBy: 'ana', decidedPlatform: 'slack' });
    expect(slack.cards[0]!.edits.length).toBeGreaterThan(0);
    expect(slack.cards[0]!.edits.at(-1)!.buttons).toEqual([]);
    expect(slack.privately).toEqual([]);
  });
});
