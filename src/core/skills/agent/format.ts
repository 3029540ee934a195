import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { KazmaError } from '../../errors.ts';

/** A SKILL.md that cannot be read as an Agent Skill; the message says what is wrong with it. */
export class AgentSkillFormatError extends KazmaError {
  constructor(message: string) {
    super('agent_skill_invalid', message);
  }
}

/** An Agent Skill (the agentskills.io format): front matter, then the instructions. */
export interface AgentSkillDoc {
  name: string;
  description: string;
  /** `allowed-tools`: tools the skill expects to use (informational; the registry still decides). */
  allowedTools: string[];
  body: string;
}

const frontMatter = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, { message: 'expected 1-64 lower-case letters, digits, "-" or "_"' }),
  description: z
    .string()
    .trim()
    .min(1, { message: 'expected a description: the model reads it to decide when the skill applies' })
    .max(1024),
  'allowed-tools': z
    .union([z.string().transform((s) => s.split(/[\s,]+/).filter(Boolean)), z.array(z.string())])
    .optional(),
});

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n([\s\S]*))?$/;

/**
 * Reads a SKILL.md: YAML front matter between `---` lines (`name`, `description`, optional
 * `allowed-tools`), then the body. Throws {@link AgentSkillFormatError} naming the field or the problem.
 */
export function parseSkillMd(text: string): AgentSkillDoc {
  const match = FENCE.exec(text.replace(/^\uFEFF/, ''));
  if (!match)
    throw new AgentSkillFormatError(
      'no front matter: SKILL.md must start with a --- block holding name and description',
    );
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!);
  } catch (error) {
    throw new AgentSkillFormatError(`front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = frontMatter.safeParse(raw ?? {});
  if (!parsed.success)
    throw new AgentSkillFormatError(
      parsed.error.issues.map((i) => `${i.path.join('.') || '(front matter)'}: ${i.message}`).join('; '),
    );
  return {
    name: parsed.data.name,
    description: parsed.data.description.trim(),
    allowedTools: parsed.data['allowed-tools'] ?? [],
    body: (match[2] ?? '').trim(),
  };
}
