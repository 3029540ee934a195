export { HttpServer } from './server.ts';
export { approvalsApi } from './approvals-api.ts';
export { metricsRoute } from './metrics.ts';
export { webUi } from './ui/app.tsx';
export type { ActionResult, ServerForm } from './ui/port.ts';
