export { createLogger, type Logger } from './logger.ts';
export { OutageLog } from './outage.ts';
