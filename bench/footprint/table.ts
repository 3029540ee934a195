// The footprint table: medians per row, with ratios against the baselines measured in the same run.
import type { Sample } from './measure.ts';

export interface Row {
  database: string;
  data: string;
  runtime: string;
  samples: Sample[];
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const medianOf = (row: Row, key: keyof Sample) => median(row.samples.map((s) => s[key]));

export function printTable(rows: Row[]): void {
  const header = [
    'database',
    'data dir',
    'runtime',
    'start→/readyz ms',
    'start→started ms',
    'RSS settled MB',
    'RSS after GC MB',
    'heap MB',
    'external MB',
    'idle CPU ms/s',
    'idle wake-ups/s',
    'range start→started',
  ];
  const body = rows.map((row) => [
    row.database,
    row.data,
    row.runtime,
    medianOf(row, 'readyMs').toFixed(0),
    medianOf(row, 'startedMs').toFixed(0),
    medianOf(row, 'rssSettledMb').toFixed(0),
    medianOf(row, 'rssGcMb').toFixed(0),
    medianOf(row, 'heapUsedMb').toFixed(0),
    medianOf(row, 'externalMb').toFixed(0),
    medianOf(row, 'idleCpuMsPerS').toFixed(2),
    medianOf(row, 'idleWakesPerS').toFixed(0),
    `${Math.min(...row.samples.map((s) => s.startedMs)).toFixed(0)}–${Math.max(...row.samples.map((s) => s.startedMs)).toFixed(0)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${line(header)}\n${body.map(line).join('\n')}`);

  const bare = rows.find((r) => r.runtime === 'bare node http');
  console.log('\nratios of medians, compiled row ÷ the row named (same database and data dir, same run):');
  for (const row of rows.filter((r) => r.runtime === 'compiled')) {
    const parts: string[] = [];
    for (const name of ['tsx', 'before']) {
      const other = rows.find((r) => r.runtime === name && r.database === row.database && r.data === row.data);
      if (!other) continue;
      parts.push(
        `÷ ${name}: start→/readyz ×${ratio(row, other, 'readyMs')}, start→started ×${ratio(row, other, 'startedMs')}, RSS after GC ×${ratio(row, other, 'rssGcMb')}`,
      );
    }
    if (bare)
      parts.push(
        `÷ bare node: RSS after GC ×${ratio(row, bare, 'rssGcMb')}; idle CPU ` +
          `${signed(medianOf(row, 'idleCpuMsPerS') - medianOf(bare, 'idleCpuMsPerS'))} ms/s over it`,
      );
    console.log(`  ${row.database} ${row.data}: ${parts.join('; ')}`);
  }
}

const ratio = (row: Row, other: Row, key: keyof Sample) => (medianOf(row, key) / medianOf(other, key)).toFixed(2);

/** `+1.25` or `-0.05`: a difference, its sign always shown. */
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
