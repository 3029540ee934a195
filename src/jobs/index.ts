// The public face of jobs.
export { BullJobDriver } from './driver.ts';
export { connectRedis, type RedisHandle } from './redis.ts';
