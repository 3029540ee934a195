// The public face of core/tasks.
export { Tasks } from './service.ts';
export { startTaskTool } from './tool.ts';
export { recentTasks } from './store.ts';
