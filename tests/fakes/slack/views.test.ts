// The fake's modals follow Slack's rules: a trigger_id opens one modal, once, within 3 seconds; a view Slack would
// refuse is refused with its error; a submission carries what was typed in `view.state.values`, and the app's
// answer closes the modal or keeps it open with its errors.
import { describe, expect, it } from 'vitest';
import { SlackViews } from './views.ts';

const id = { teamId: 'T0FAKE', appId: 'A0KAZMA', botUserId: 'UBOT', botId: 'BBOT' };
const modal = (title = 'Why?') => ({
  type: 'modal',
  callback_id: 'kazma_reason',
  title: { type: 'plain_text', text: title },
  submit: { type: 'plain_text', text: 'Send' },
  blocks: [
    {
      type: 'input',
      block_id: 'reason',
      label: { type: 'plain_text', text: 'Reason' },
      element: { type: 'plain_text_input', action_id: 'reason', max_length: 10 },
    },
  ],
});

describe('the fake Slack’s modals', () => {
  it('exchanges a trigger_id once, and refuses an unknown one and a view Slack would refuse', () => {
    const views = new SlackViews(id);
    const trigger = views.trigger('U0MAYA');
    expect(views.handle('views.open', { trigger_id: 'nope', view: modal() })).toEqual({
      ok: false,
      error: 'invalid_trigger_id',
    });
    expect(views.handle('views.open', { trigger_id: trigger, view: modal('a title longer than 24 chars') })).toEqual({
      ok: false,
      error: 'invalid_arguments',
    });
    expect(views.handle('views.open', { trigger_id: trigger, view: JSON.stringify(modal()) })).toMatchObject({
      ok: true,
      view: { type: 'modal', state: { values: {} }, app_id: 'A0KAZMA' },
    });
    expect(views.handle('views.open', { trigger_id: trigger, view: modal() })).toEqual({
      ok: false,
      error: 'exchanged_trigger_id',
    });
    expect(views.handle('chat.postMessage', {})).toBeUndefined();
  });

  it('lets a trigger_id expire after 3 seconds', async () => {
    const views = new SlackViews(id);
    const trigger = views.trigger('U0MAYA');
    await new Promise((resolve) => setTimeout(resolve, 3100));
    expect(views.handle('views.open', { trigger_id: trigger, view: modal() })).toEqual({
      ok: false,
      error: 'expired_trigger_id',
    });
  });

  it('submits what was typed, refuses what the client would not send, and reads the app’s answer', () => {
    const views = new SlackViews(id);
    views.handle('views.open', { trigger_id: views.trigger('U0MAYA'), view: modal() });
    const [open] = views.open;
    expect(() => views.submission({ viewId: open!.id, user: 'U0OMAR', values: { reason: 'x' } })).toThrow(
      /Maya|U0MAYA/,
    );
    expect(() => views.submission({ viewId: open!.id, user: 'U0MAYA', values: {} })).toThrow(/required/);
    expect(() => views.submission({ viewId: open!.id, user: 'U0MAYA', values: { reason: 'x'.repeat(11) } })).toThrow(
      /max_length/,
    );
    const payload = views.submission({ viewId: open!.id, user: 'U0MAYA', values: { reason: 'no' } });
    expect(payload).toMatchObject({
      type: 'view_submission',
      user: { id: 'U0MAYA' },
      view: { id: open!.id, callback_id: 'kazma_reason', state: { values: { reason: { reason: { value: 'no' } } } } },
    });
    views.answered(open!.id, 200, JSON.stringify({ response_action: 'errors', errors: { reason: 'why?' } }));
    expect(open).toMatchObject({ closed: false, errors: [{ reason: 'why?' }] });
    views.answered(open!.id, 200, '');
    expect(open!.closed).toBe(true);
    expect(() => views.submission({ viewId: open!.id, user: 'U0MAYA', values: { reason: 'no' } })).toThrow(/no open/);
  });
});
