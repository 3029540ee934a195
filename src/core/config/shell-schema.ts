import { z } from 'zod';
import { duration } from './duration.ts';
import { runAs } from './run-as.ts';
import { size } from './size.ts';

/** `tools.shell` in kazma.yaml: the shell tool's allow-list, time, sandbox and limits (docs/configuration.md). */
export const shellSchema = z
  .strictObject({
    allow: z.array(z.string()).optional(),
    timeout: duration('60s'),
    /** `bwrap`: every command runs in a bubblewrap sandbox (refused where it cannot run); `off`: uncontained. */
    sandbox: z.enum(['bwrap', 'off']).default('bwrap'),
    /** Whether sandboxed commands may use the network. */
    network: z.boolean().default(false),
    /** CPU seconds a command may use (RLIMIT_CPU via prlimit, when installed). */
    cpu_seconds: z.number().int().min(1).default(60),
    /** Address space per process of a command (RLIMIT_AS via prlimit), e.g. 512MB or 2GB; parsed to bytes. */
    memory: size('512MB', { min: '16MB' }),
    /** Processes a command may run at once (RLIMIT_NPROC via prlimit). */
    max_processes: z.number().int().min(2).default(64),
    /** `uid[:gid]` (not 0) sandboxed programs run as when Kazma is root, so the process limit holds. */
    run_as: runAs('65534:65534'),
  })
  .prefault({});
