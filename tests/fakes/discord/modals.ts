// Modals, as Discord runs them: an APPLICATION_COMMAND or MESSAGE_COMPONENT interaction may be answered with
// type 9 (MODAL) — as its one response, within its deadline — and the user then fills the text inputs and
// submits, which Discord sends as a new MODAL_SUBMIT interaction (type 5) whose data mirrors the modal's
// components with the values typed (a Label's `component`, or an action row's `components`). A modal submitted
// from a component's modal carries that component's message, and may be answered with 6/7 like a tap.
// The modal is checked as Discord checks it: custom_id 1–100, title 1–45, 1–5 components, each a Label (18)
// holding a text input (4) or a legacy action row (1) holding one; a text input's custom_id, style 1|2, lengths.
import type { Json } from './call-log.ts';
import { fieldError, formError } from './router.ts';
import { codePoints } from './validate.ts';

const len = (max: number, min = 1): Json =>
  fieldError('BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);

/** A text input's problem, or undefined. `inLabel`: its label is the Label's, so it may not have one itself. */
function badInput(input: Json | undefined, inLabel: boolean): Json | undefined {
  if (input?.type !== 4) return { type: fieldError('UNION_TYPE_CHOICES', 'Value of field "type" must be 4.') };
  if (typeof input.custom_id !== 'string' || codePoints(input.custom_id) < 1 || codePoints(input.custom_id) > 100)
    return { custom_id: len(100) };
  if (input.style !== 1 && input.style !== 2) return { style: fieldError('BASE_TYPE_CHOICES', 'Must be 1 or 2.') };
  if (inLabel && input.label !== undefined)
    return { label: fieldError('COMPONENT_LAYOUT_INVALID', 'A text input in a Label has no label of its own.') };
  if (!inLabel && (typeof input.label !== 'string' || codePoints(input.label) > 45)) return { label: len(45) };
  const min = input.min_length ?? 0;
  const max = input.max_length ?? 4000;
  if (!Number.isInteger(min) || min < 0 || min > 4000) return { min_length: len(4000, 0) };
  if (!Number.isInteger(max) || max < 1 || max > 4000 || max < min) return { max_length: len(4000) };
  return undefined;
}

/** The error Discord answers a type 9 response's `data` with, or null when it takes it. */
export function validateModal(data: Json): Response | null {
  if (typeof data?.custom_id !== 'string' || codePoints(data.custom_id) < 1 || codePoints(data.custom_id) > 100)
    return formError({ data: { custom_id: len(100) } });
  if (typeof data.title !== 'string' || codePoints(data.title) < 1 || codePoints(data.title) > 45)
    return formError({ data: { title: len(45) } });
  const components: Json[] = Array.isArray(data.components) ? data.components : [];
  if (components.length < 1 || components.length > 5) return formError({ data: { components: len(5) } });
  for (const [i, c] of components.entries()) {
    const bad =
      c?.type === 18
        ? typeof c.label !== 'string' || codePoints(c.label) < 1 || codePoints(c.label) > 45
          ? { label: len(45) }
          : badInput(c.component, true)
        : c?.type === 1
          ? c.components?.length === 1
            ? badInput(c.components[0], false)
            : { components: len(1) }
          : { type: fieldError('UNION_TYPE_CHOICES', 'Value of field "type" must be one of (1, 18).') };
    if (bad) return formError({ data: { components: { [i]: bad } } });
  }
  return null;
}

/** Every text input of a modal, with where it sits. */
function inputsOf(modal: Json): Json[] {
  return (modal.components as Json[]).map((c) => (c.type === 18 ? c.component : c.components[0]));
}

/**
 * The `data` of the MODAL_SUBMIT interaction for `values` (text input custom_id → text) typed into `modal`.
 * Throws where the Discord client would not let the user submit: a required input empty, a length outside
 * min_length/max_length.
 */
export function modalSubmitData(modal: Json, values: Record<string, string>): Json {
  for (const input of inputsOf(modal)) {
    const value = values[input.custom_id] ?? '';
    const required = input.required !== false;
    if (required && value === '') throw new Error(`fake discord: the required input ${input.custom_id} is empty`);
    if (value !== '' && codePoints(value) < (input.min_length ?? 0))
      throw new Error(`fake discord: ${input.custom_id} is shorter than its min_length`);
    if (codePoints(value) > (input.max_length ?? 4000))
      throw new Error(`fake discord: ${input.custom_id} is longer than its max_length`);
  }
  let id = 0;
  const submitted = (input: Json): Json => ({
    type: 4,
    id: ++id,
    custom_id: input.custom_id,
    value: values[input.custom_id] ?? '',
  });
  const components = (modal.components as Json[]).map((c) =>
    c.type === 18
      ? { type: 18, id: ++id, component: submitted(c.component) }
      : { type: 1, id: ++id, components: [submitted(c.components[0])] },
  );
  return { custom_id: modal.custom_id, components };
}
