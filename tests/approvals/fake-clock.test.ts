// Approval expiry and "always" grants read the core's clock: with a clock the test moves, a question
// expires exactly when approvals.timeout says and a grant ends exactly at approvals.grant_ttl — no
// waiting in real time, and no expiry a minute early.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/core/approvals/port.ts';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { RecordingSurface } from '../helpers/recording-surface.ts';

const MINUTE = 60_000;
let k: Assembled | undefined;
afterEach(async () => {
  await k?.close();
  k = undefined;
});

async function start(clock: FakeClock) {
  k = await startAssembled(
    { access: { operators: [{ name: 'maya', telegram: '42' }] }, approvals: { timeout: '10m', grant_ttl: '1h' } },
    { clock },
  );
  const surface = new RecordingSurface('telegram');
  k.kazma.core.attachSurface(surface);
  return { k, surface };
}

const question = (): ApprovalRequest => ({
  threadId: `t-${randomUUID()}`,
  interruptId: 'i1',
  chat: 'telegram:1',
  requester: { platform: 'telegram', id: '42' },
  call: {
    kind: 'tool_approval',
    callId: 'c1',
    tool: 'launch',
    args: { target: 'venus' },
    tier: 'danger',
    reason: 'test',
  },
});

describe('the core reads a clock the test moves', () => {
  it('a question expires at approvals.timeout, not before, and its card says so', async () => {
    const clock = new FakeClock();
    const { k, surface } = await start(clock);
    const gate = await k.kazma.core.approvals.open(question());
    expect(gate.expiresAt.getTime() - clock.now().getTime()).toBe(10 * MINUTE);

    clock.advance(9 * MINUTE);
    await k.kazma.core.reconciler.sweep();
    expect((await k.kazma.core.approvals.get(gate.gateId))!.state).toBe('pending');

    clock.advance(2 * MINUTE);
    await k.kazma.core.reconciler.sweep();
    await k.settled();
    expect((await k.kazma.core.approvals.get(gate.gateId))!.state).toBe('timeout');
    expect(surface.cards[0]!.edits.at(-1)!.buttons).toEqual([]);
  });

  it('an "always" grant covers the call until approvals.grant_ttl has passed on the clock', async () => {
    const clock = new FakeClock();
    const { k, surface } = await start(clock);
    const request = question();
    await k.kazma.core.approvals.open(request);
    await k.settled();
    const always = surface.cards[0]!.card.buttons.find((b) => b.id.endsWith(':always'))!.id;
    await k.kazma.core.pipeline.handle({
      kind: 'action',
      eventId: randomUUID(),
      platform: 'telegram',
      chat: 'telegram:1',
      actor: { platform: 'telegram', id: '42' },
      actionId: always,
    });
    await k.settled();
    const call = { chat: request.chat!, tool: 'launch', args: { target: 'venus' } };

    clock.advance(59 * MINUTE);
    expect(await k.kazma.core.approvals.isGranted(call)).toBe(true);
    clock.advance(2 * MINUTE);
    expect(await k.kazma.core.approvals.isGranted(call)).toBe(false);
  });
});
