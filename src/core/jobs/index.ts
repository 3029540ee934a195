// The public face of core/jobs.
export {
  JOB_LANES,
  JOB_STATES,
  JobKinds,
  type JobDepths,
  type JobKind,
  type JobLane,
  type JobOptions,
  type JobQueue,
  type JobState,
} from './port.ts';
export { SWEEP_SCHEDULE, sweepJob, type SweepStep } from './sweep.ts';
