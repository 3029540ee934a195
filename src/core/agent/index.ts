// The public face of core/agent.
export { callSite } from './model/model-chain.ts';
export { isModelConfigured, modelEntries, modelLabel } from './model/model-factory.ts';
export { NO_MODEL, probeModel, unconfiguredWarning } from './model/model-probe.ts';
export { createSampler } from './model/sampler.ts';
export { TurnRunner, type DriveResult } from './runner/turn-runner.ts';
