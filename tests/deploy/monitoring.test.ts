// The sample Grafana dashboard and Prometheus alert rules in docs/monitoring/ name only metrics a running
// Kazma serves (scraped from a real one), and each alert says what it means and how bad it is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startAssembled, type Assembled } from '../helpers/assembled.ts';
import { REPO_ROOT } from '../helpers/repo-root.ts';

const DIR = join(REPO_ROOT, 'docs', 'monitoring');
const dashboard = JSON.parse(readFileSync(join(DIR, 'grafana-dashboard.json'), 'utf8')) as {
  uid: string;
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
};
const alerts = parse(readFileSync(join(DIR, 'prometheus-alerts.yaml'), 'utf8')) as {
  groups: Array<{
    rules: Array<{
      alert: string;
      expr: string;
      for: string;
      labels: { severity: string };
      annotations: Record<string, string>;
    }>;
  }>;
};
const rules = alerts.groups.flatMap((g) => g.rules);
const dashboardExprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));

/** Series names an expression reads: Kazma's own and the process figures (`up` is Prometheus's). */
function seriesOf(expr: string): string[] {
  return [...expr.matchAll(/\b((?:kazma|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
}

/** The names `/metrics` serves: each `# TYPE`, with a histogram's `_bucket`, `_sum` and `_count`. */
function served(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram' || type === 'summary') for (const s of ['_bucket', '_sum', '_count']) names.add(name! + s);
  }
  return names;
}

let k: Assembled;
let names: Set<string>;
beforeAll(async () => {
  k = await startAssembled({ metrics: { public: true } });
  names = served(await (await fetch(`http://127.0.0.1:${k.kazma.http.port}/metrics`)).text());
});
afterAll(async () => {
  await k.close();
});

describe('docs/monitoring', () => {
  it('every series the dashboard and the alert rules read is one Kazma serves', () => {
    const used = [...dashboardExprs, ...rules.map((r) => r.expr)].flatMap(seriesOf);
    expect(used.length).toBeGreaterThan(20);
    expect(used.filter((name) => !names.has(name))).toEqual([]);
    // Negative control: a series nobody serves is found.
    expect(seriesOf('rate(kazma_not_a_metric_total[5m])').filter((n) => !names.has(n))).toEqual([
      'kazma_not_a_metric_total',
    ]);
  });

  it('the alerts cover backlog, model errors and incidents, each with a severity, a wait and words', () => {
    const series = (name: string) => rules.filter((r) => seriesOf(r.expr).some((s) => s.startsWith(name)));
    for (const name of ['kazma_outbox_', 'kazma_jobs', 'kazma_model_requests_total', 'kazma_incidents_open'])
      expect(series(name).length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(rule.labels.severity).toMatch(/^(critical|warning|info)$/);
      expect(rule.for).toMatch(/^\d+[smh]$/);
      expect(rule.annotations.summary?.length).toBeGreaterThan(10);
      expect(rule.annotations.description?.length).toBeGreaterThan(10);
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('the dashboard has a stable uid and every panel a query', () => {
    expect(dashboard.uid).toBe('kazma-overview');
    for (const panel of dashboard.panels) expect(panel.targets.length).toBeGreaterThan(0);
  });
});
