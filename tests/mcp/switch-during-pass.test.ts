// `/config tools toggle <server>` while a periodic pass of the MCP manager is under way: the switch joined
// that pass, whose list of servers was read before the switch was saved. Switched off, the server stayed
// live and its tools callable after the command had answered (until the next pass); switched on, the old
// pass wrote it back as disabled. A switch now waits for a pass that begins after it.
import { afterEach, expect, it } from 'vitest';
import { everythingStdio, managerFor } from './servers.ts';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

it('a server switched off during a pass is stopped, its tools gone, by the time the switch returns', async () => {
  const m = await managerFor([everythingStdio()]);
  close = m.close;
  await m.manager.reconcile();
  expect(m.registry.list().some((t) => t.name.startsWith('mcp__everything__'))).toBe(true);

  // The next read of the server list (the periodic pass's) comes back only when released.
  const read = m.settings.servers.bind(m.settings);
  let release!: () => void;
  let heldRead!: () => void;
  const readDone = new Promise<void>((resolve) => (heldRead = resolve));
  let armed = true;
  m.settings.servers = async () => {
    const servers = await read();
    if (armed) {
      armed = false;
      heldRead();
      await new Promise<void>((resolve) => (release = resolve));
    }
    return servers;
  };
  const pass = m.manager.reconcile();
  await readDone; // the pass has the list with the server on
  const switched = m.manager.setEnabled('everything', false, 'maya');
  await new Promise((resolve) => setTimeout(resolve, 20));
  release();
  await switched;
  // Before the fix the server was still running here and its tools still registered.
  expect(m.manager.running()).not.toContain('everything');
  expect(m.registry.list().some((t) => t.name.startsWith('mcp__everything__'))).toBe(false);
  await pass;
});
