import { platformLabel, visibleJson } from '../../../core/surface/index.ts';
import type { ViewContext } from './approvals-view.tsx';

/** The newest `/config` changes the page lists. */
const CHANGES = 50;
const at = (date: Date) => `${date.toISOString().replace('T', ' ').slice(0, 19)} UTC`;

/**
 * What run time changed over kazma.yaml — every saved setting (tool, MCP server and skill switches, the
 * house instructions, the model), who saved it last and when, and the newest `/config` changes with who
 * made them where — then the configuration as loaded with those changes applied. Every secret masked.
 */
export async function settingsView(ctx: ViewContext) {
  const { saved, changes } = await ctx.core.runtime(CHANGES);
  return (
    <>
      <h1>Settings</h1>
      <h2>Changed at run time</h2>
      {saved.length === 0 ? (
        <p class="muted">Nothing: kazma.yaml applies as written.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Setting</th>
              <th>Value</th>
              <th>By</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {saved.map((row) => (
              <tr data-key={row.key}>
                <td>{row.key}</td>
                <td>
                  <pre dir="auto">{visibleJson(row.value, 2)}</pre>
                </td>
                <td class="by" dir="auto">
                  {row.by ?? ''}
                </td>
                <td class="at">{at(row.at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Recent changes</h2>
      {changes.length === 0 ? (
        <p class="muted">No /config change yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>Where</th>
              <th>Command</th>
              <th>Detail</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((change) => (
              <tr data-change={change.command}>
                <td class="at">{at(change.at)}</td>
                <td class="by" dir="auto">
                  {change.who}
                </td>
                <td>
                  {platformLabel(change.platform)} <span class="muted">{change.chat}</span>
                </td>
                <td dir="auto">{change.command}</td>
                <td dir="auto">{change.detail ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>As loaded, with those changes</h2>
      <pre dir="auto">{visibleJson(ctx.core.settings(), 2)}</pre>
    </>
  );
}
