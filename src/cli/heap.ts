// The young generation of a long-running Kazma stays at V8's initial size (1 MB semi-spaces) instead of
// growing to 16 MB ones. Measured (bench/footprint.ts, docs/performance.md "Footprint and start time"): a start grows
// it to the maximum — loading ~2,000 modules is a burst in which everything survives — and V8 never
// gives those 32 MB back while the process stays busy with timers and sockets, so an idle Kazma kept
// ~28 MB of RSS for an empty nursery; start time did not change measurably. The cost is more, smaller
// scavenges under load (each one short), which a chat agent waiting on model calls does not feel.
//
// `--max-semi-space-size` would say this at launch, but only on node's command line, which Kazma does not
// own (`npm start`, `npx kazma`, a service file); the growth factor is read each time V8 would grow the
// space, so setting it here, before the modules load, works however Kazma was started. An operator who
// sets the young generation on the command line or in NODE_OPTIONS keeps their setting.
import { setFlagsFromString } from 'node:v8';
import { operatorNodeFlags } from '../core/node-flags.ts';

export function keepYoungGenerationSmall(): void {
  if (/semi[-_]space/.test(operatorNodeFlags())) return;
  setFlagsFromString('--semi-space-growth-factor=1');
}
