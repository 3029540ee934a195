export { HttpServer } from './server.ts';
