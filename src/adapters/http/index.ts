export { HttpServer, type HttpServerOptions } from './server.ts';
export type { ReadinessCheck } from './health.ts';
