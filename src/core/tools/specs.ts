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
  const specs: ToolSpec[] = [];
  for (const tool of tools) {
    // io 'input': a field with a default is optional for the caller, so it must not be "required".
    const { $schema: _drop, ...parameters } = tool.parameters ?? (z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>);
    specs.push({ type: 'function', function: { name: tool.name, description: tool.description, parameters } });
  }
  return specs;
}
