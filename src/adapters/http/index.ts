export { HttpServer } from './server.ts';
export { approvalsApi } from './approvals-api.ts';
export { webUi } from './ui/app.tsx';
