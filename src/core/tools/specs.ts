import { z } from 'zod';
import type { ToolDefinition } from './define.ts';

/**
 * A tool as a chat model is told about it, in the OpenAI function format that LangChain's
 * `bindTools` accepts for every provider.
 */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * Describes `tools` for binding to a chat model.
 *
 * @example
 * const model = chat.bindTools(registry.toolSpecs());
 */
export function toolSpecs(tools: Iterable<ToolDefinition>): ToolSpec[] {
  return [...tools].map(specOf);
}

/**
 * A definition never changes once made (a changed tool is a new definition), so its spec is built once:
 * converting a zod schema to JSON Schema on every model call was a measurable part of a turn's CPU. The
 * same definition always gives the same spec object, which lets callers compare tool lists by identity.
 */
const specs = new WeakMap<ToolDefinition, ToolSpec>();

function specOf(tool: ToolDefinition): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) {
    // io 'input': a field with a default is optional for the caller, so it must not be "required".
    const { $schema: _drop, ...parameters } =
      tool.parameters ?? (z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>);
    spec = { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
    specs.set(tool, spec);
  }
  return spec;
}
