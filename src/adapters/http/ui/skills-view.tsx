import type { AgentSkillView, SkillStateView } from './port.ts';

/** A verdict and, when there is one, why (muted beside it). */
function Verdict(props: { status: string; note?: string | undefined }) {
  return (
    <>
      <span class="state">{props.status}</span>
      {props.note && (
        <span class="muted" dir="auto">
          {' '}
          — {props.note}
        </span>
      )}
    </>
  );
}

/** Skill folders (code, signed with skill.yaml): each one's verification verdict, switch and tools. */
export function SkillTable(props: { skills: SkillStateView[] }) {
  const { skills } = props;
  if (skills.length === 0) return <p class="muted">No skills found (skills.paths and the data folder's skills/).</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>Skill</th>
          <th>Verification</th>
          <th>State</th>
          <th>Tools</th>
        </tr>
      </thead>
      <tbody>
        {skills.map((skill) => (
          <tr data-skill={skill.name} data-status={skill.status}>
            <td>{skill.name}</td>
            <td>
              <Verdict status={skill.status} note={skill.note} />
            </td>
            <td>
              {skill.status === 'verified' || skill.status === 'unsigned' ? (skill.on ? 'on' : 'off') : 'not loaded'}
            </td>
            <td>{skill.tools.join(', ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Agent Skills (SKILL.md folders, `kazma agent-skills`): each one's seal verdict, whether the model is
 * offered it, and where it came from (the source its seal names, else the folder it was found in).
 */
export function AgentSkillTable(props: { skills: AgentSkillView[] }) {
  const { skills } = props;
  if (skills.length === 0)
    return <p class="muted">No Agent Skills found (install one with kazma agent-skills install).</p>;
  return (
    <table>
      <thead>
        <tr>
          <th>Agent Skill</th>
          <th>Verification</th>
          <th>Offered to the model</th>
          <th>Source</th>
        </tr>
      </thead>
      <tbody>
        {skills.map((skill) => (
          <tr data-agent-skill={skill.name} data-status={skill.status}>
            <td>
              {skill.name}
              {skill.description && (
                <div class="muted" dir="auto">
                  {skill.description}
                </div>
              )}
            </td>
            <td>
              <Verdict status={skill.status} note={skill.note} />
            </td>
            <td>{skill.offered ? 'yes' : 'no'}</td>
            <td class="source" dir="auto">
              {skill.source ? `installed from ${skill.source}` : `found in ${skill.dir}`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
