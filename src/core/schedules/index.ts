// The public face of core/schedules.
export { Schedules } from './service.ts';
export { scheduleTools } from './tools.ts';
