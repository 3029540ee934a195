// The public face of core/metrics: the process's Prometheus figures (docs/operations.md "Metrics").
export { Meter, type DriveOutcome, type TokenUse, type ToolOutcome } from './meter.ts';
export type { ModelCallEnd } from './tracing.ts';
