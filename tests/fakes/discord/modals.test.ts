// The fake's modals follow Discord's rules: a type 9 response's data is checked as Discord checks it (lengths,
// 1–5 components, a Label holding a text input or a legacy action row holding one), and a submission mirrors the
// modal's components with the values typed, refusing what the client would not send.
import { describe, expect, it } from 'vitest';
import { modalSubmitData, validateModal } from './modals.ts';

const input = { type: 4, custom_id: 'reason', style: 2, required: true, min_length: 1, max_length: 10 };
const modal = {
  custom_id: 'why:apv:g1:deny',
  title: 'Why?',
  components: [{ type: 18, label: 'Reason', component: input }],
};

describe('the fake Discord’s modals', () => {
  it('takes a well-formed modal and refuses one Discord would refuse, naming the field', async () => {
    expect(validateModal(modal)).toBeNull();
    expect(
      validateModal({ ...modal, components: [{ type: 1, components: [{ ...input, label: 'Reason' }] }] }),
    ).toBeNull();
    const refused = async (data: Record<string, unknown>) => (await validateModal(data)!.json()) as { errors: unknown };
    expect(await refused({ ...modal, title: 'x'.repeat(46) })).toMatchObject({ errors: { data: { title: {} } } });
    expect(await refused({ ...modal, components: [] })).toMatchObject({ errors: { data: { components: {} } } });
    expect(
      await refused({ ...modal, components: [{ type: 18, label: 'Reason', component: { ...input, label: 'twice' } }] }),
    ).toMatchObject({ errors: { data: { components: { 0: { label: {} } } } } });
    expect(
      await refused({ ...modal, components: [{ type: 18, label: 'Reason', component: { ...input, style: 3 } }] }),
    ).toMatchObject({ errors: { data: { components: { 0: { style: {} } } } } });
  });

  it('submits the values typed in the modal’s own shape, and refuses an empty required input', () => {
    expect(modalSubmitData(modal, { reason: 'not today' })).toEqual({
      custom_id: 'why:apv:g1:deny',
      components: [{ type: 18, id: 1, component: { type: 4, id: 2, custom_id: 'reason', value: 'not today' } }],
    });
    expect(() => modalSubmitData(modal, {})).toThrow(/required/);
    expect(() => modalSubmitData(modal, { reason: 'x'.repeat(11) })).toThrow(/max_length/);
  });
});
