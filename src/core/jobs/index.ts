// The public face of core/jobs.
export { JOB_LANES, JobKinds, type JobKind, type JobLane, type JobOptions, type JobQueue } from './port.ts';
export { SWEEP_SCHEDULE, sweepJob, type SweepStep } from './sweep.ts';
