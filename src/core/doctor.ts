// One shape for every `kazma doctor` check — the CLI's own (database, Redis, model, sandbox) and each
// chat adapter's — and one way to print what a check found, so every line reads the same.

/** How a check went: fine, worth a look (Kazma still runs), or broken (doctor exits 1). */
export type DoctorStatus = 'ok' | 'warn' | 'fail';

/** What one check found: its name, how it went, what it saw and, when there is something to do, the fix. */
export interface DoctorResult {
  name: string;
  status: DoctorStatus;
  detail: string;
  fix?: string;
}

/** A finding other than "fine": a warning, with what to do about it when there is something. */
export interface DoctorWarning {
  status: 'warn';
  detail: string;
  fix?: string;
}

/**
 * One named check. `run` resolves with what is fine (or a {@link DoctorWarning}); it throws what is wrong,
 * its message saying how to fix it.
 */
export interface DoctorCheck {
  name: string;
  run(): Promise<string | DoctorWarning>;
}

/** Runs one check: a throw is its failure. */
export async function runDoctorCheck(check: DoctorCheck): Promise<DoctorResult> {
  try {
    const found = await check.run();
    return typeof found === 'string'
      ? { name: check.name, status: 'ok', detail: found }
      : { name: check.name, ...found };
  } catch (error) {
    return { name: check.name, status: 'fail', detail: (error as Error).message };
  }
}

const MARK: Record<DoctorStatus, string> = { ok: '✓', warn: '!', fail: '✗' };

/** The line `kazma doctor` prints: `✓ redis: answers at …`, `! model: …`, `✗ telegram token: …`. */
export function doctorLine(result: DoctorResult): string {
  return `${MARK[result.status]} ${result.name}: ${result.detail}${result.fix ? `. ${result.fix}` : ''}`;
}
