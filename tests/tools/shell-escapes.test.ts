// The walk-arounds from the "Hardening" issue, played the way a model would play them: through the tools,
// one call at a time. Each must leave nothing outside the workspace changed or read, whether the policy
// refuses a step or the sandbox contains it.
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/core/tools/define.ts';
import type { ExecuteResult } from '../../src/core/tools/registry.ts';
import { call, makeCanary, startFlipper, toolRegistry, type Canary } from './escape-kit.ts';
import { makeWorkspace } from './fixture.ts';

const registry = toolRegistry();
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let canary: Canary;
beforeEach(async () => {
  ws = await makeWorkspace();
  canary = await makeCanary();
});
afterEach(async () => {
  await ws.cleanup();
  await canary.cleanup();
});

const shell = (command: string, ctx: ToolContext = ws.ctx): Promise<ExecuteResult> =>
  call(registry, ctx, 'shell', { command });
const write = (file: string, content: string): Promise<ExecuteResult> =>
  call(registry, ws.ctx, 'write_file', { path: file, content });
const refused = { ok: false, refused: true };

/** A directory shaped like a git directory whose config defines `git x` as a shell command. */
async function fakeGitDir(dir: string, payload: string): Promise<void> {
  await write(`${dir}/config`, `[core]\n\trepositoryformatversion = 0\n[alias]\n\tx = "!${payload}"\n`);
  await write(`${dir}/HEAD`, 'ref: refs/heads/main\n');
  await write(`${dir}/objects/keep`, '');
  await write(`${dir}/refs/keep`, '');
}

/** A workspace that is a git repository with one commit, made through the shell tool. */
async function gitRepo(): Promise<void> {
  for (const command of ['git init -q', 'git config user.email k@example.com', 'git config user.name kazma']) {
    expect(await shell(command)).toMatchObject({ ok: true });
  }
  await write('a.txt', 'one\n');
  expect(await shell('git add a.txt')).toMatchObject({ ok: true });
  expect(await shell('git commit -qm first')).toMatchObject({ ok: true });
}

describe('git run on a config the model wrote', () => {
  it('--git-dir / --work-tree / -C at a model-written directory run no alias', async () => {
    await fakeGitDir('notes', `touch ${canary.marker}`);
    for (const command of ['git --git-dir=notes x', 'git --git-dir notes x', 'git --work-tree=. --git-dir=notes x']) {
      expect(await shell(command), command).toMatchObject(refused);
    }
    // Not refused (a directory may hold a repository), but git must not discover a bare one there.
    await shell('git -C notes x');
    await canary.untouched();
  });

  it.each(['mv d .git', 'cp -r d .git', 'mv d/config .git', 'mkdir .git', 'touch .git', 'cp -r d sub/.git'])(
    '`%s` is refused, so no folder the model wrote becomes the repository',
    async (command) => {
      await fakeGitDir('d', `touch ${canary.marker}`);
      await mkdir(path.join(ws.dir, 'sub'));
      if (command === 'mv d/config .git') await shell('git init -q');
      expect(await shell(command)).toMatchObject(refused);
      await shell('git x');
      await shell('git -C sub x');
      await canary.untouched();
    },
  );

  it.each([
    ['remote.origin.uploadpack', 'git fetch origin'],
    ['remote.origin.receivepack', 'git push origin HEAD:refs/heads/other'],
    ['core.alternateRefsCommand', 'git fetch origin'],
    ['diff.x.command', 'git diff'],
    ['diff.x.textconv', 'git diff'],
    ['filter.x.clean', 'git add a.txt'],
    ['merge.x.driver', 'git status'],
    ['gpg.ssh.program', 'git commit -S -qm signed --allow-empty'],
    ['gpg.ssh.defaultKeyCommand', 'git commit -S -qm signed --allow-empty'],
    ['trailer.x.command', 'git interpret-trailers --trailer x=1 a.txt'],
    ['trailer.x.cmd', 'git interpret-trailers --trailer x=1 a.txt'],
    ['sendemail.sendmailcmd', 'git status'],
    ['submodule.s.update', 'git submodule update'],
    ['imap.tunnel', 'git status'],
    ['credential.https://example.com.helper', 'git status'],
    ['core.worktree', 'git status'],
    ['include.path', 'git status'],
  ])('`git config %s` is refused and its trigger (%s) runs nothing', async (key, trigger) => {
    await gitRepo();
    expect(await shell('git remote add origin .')).toMatchObject({ ok: true });
    await write('.gitattributes', '* diff=x filter=x merge=x\n'); // refused now; harmless either way
    const r = await shell(`git config ${key} "touch ${canary.marker}"`);
    expect(r).toMatchObject(refused);
    expect(r.ok === false && r.error).toMatch(/run|outside|program|not allowed/);
    await write('a.txt', 'two\n');
    await shell(trigger);
    await canary.untouched();
  });

  it('`git config --rename-section` cannot turn a harmless section into aliases', async () => {
    await gitRepo();
    expect(await shell(`git config foo.x "!touch ${canary.marker}"`)).toMatchObject({ ok: true });
    expect(await shell('git config --rename-section foo alias')).toMatchObject(refused);
    await shell('git x');
    await canary.untouched();
  });

  it('`git init --separate-git-dir` at a model-written directory is refused', async () => {
    await fakeGitDir('notes', `touch ${canary.marker}`);
    expect(await shell('git init --separate-git-dir=notes')).toMatchObject(refused);
    expect(await shell('git init --separate-git-dir notes')).toMatchObject(refused);
    await shell('git x');
    await canary.untouched();
  });
});

describe('symlinks', () => {
  it('`d -> .` then `d/d/../..` reads and writes nothing outside', async () => {
    await symlink('.', path.join(ws.dir, 'd'));
    // From the workspace, the kernel walks d/d (still the workspace), then one ".." per level up to "/".
    const depth = ws.dir.split('/').filter(Boolean).length;
    const up = `${'d/'.repeat(depth)}${'../'.repeat(depth)}`;
    const outside = `${up}${canary.dir.slice(1)}`;
    for (const command of [
      `ls ${up}`,
      `cat ${outside}/secret.txt`,
      `touch ${outside}/marker`,
      `cp a ${outside}/marker`,
      `ls ${outside}`,
    ]) {
      const r = await shell(command);
      expect(r, command).toMatchObject(refused);
      expect(r.ok === false && r.error).toContain('..');
    }
    for (const [name, args] of [
      ['read_file', { path: `${outside}/secret.txt` }],
      ['list_files', { path: outside }],
      ['write_file', { path: `${outside}/marker`, content: 'x' }],
    ] as const) {
      expect(await call(registry, ws.ctx, name, args), name).toMatchObject(refused);
    }
    await canary.untouched();
  });

  it('a directory swapped for a link after the check lets no shell command write outside, nor read a hidden HOME', async () => {
    // The sandbox's root is readable by design; what it hides is HOME (and Kazma's data). So writes are
    // aimed at a plain directory, reads at the caller's HOME.
    const home = await makeCanary();
    const ctx = { ...ws.ctx, env: { ...ws.ctx.env, HOME: home.dir } };
    await writeFile(path.join(ws.dir, 'seed.txt'), 'x');
    try {
      for (const [target, commands] of [
        [canary.dir, ['touch d/marker', 'cp seed.txt d/marker', 'mkdir d/marker']],
        [home.dir, ['cat d/secret.txt', 'ls d', 'touch d/marker']],
      ] as const) {
        const flipper = startFlipper(path.join(ws.dir, 'd'), target);
        try {
          const deadline = Date.now() + 2_500;
          while (Date.now() < deadline) {
            for (const command of commands) {
              const r = await shell(command, ctx); // call() fails the test if the secret's text shows up
              if (command === 'ls d' && r.ok) expect(r.output).not.toContain('secret.txt');
            }
          }
        } finally {
          await flipper.stop();
          // A flipper killed mid-swap can leave `d` a link to this round's target; the next round must
          // start from a plain directory, or it would flip between two targets (one of them readable).
          await rm(path.join(ws.dir, 'd'), { recursive: true, force: true });
          await rm(path.join(ws.dir, 'd.real'), { recursive: true, force: true });
        }
      }
      await canary.untouched();
      await home.untouched();
    } finally {
      await home.cleanup();
    }
  });

  it('a directory swapped for a link after the check lets no file tool out', async () => {
    await mkdir(path.join(ws.dir, 'd'));
    const flipper = startFlipper(path.join(ws.dir, 'd'), canary.dir);
    try {
      const deadline = Date.now() + 3_000;
      while (Date.now() < deadline) {
        await call(registry, ws.ctx, 'write_file', { path: 'd/marker', content: 'x' });
        await call(registry, ws.ctx, 'write_file', { path: 'd/sub/marker', content: 'x' });
        await call(registry, ws.ctx, 'read_file', { path: 'd/secret.txt' });
        const listed = await call(registry, ws.ctx, 'list_files', { path: 'd' });
        expect(JSON.stringify(listed)).not.toContain('secret.txt');
      }
    } finally {
      await flipper.stop();
    }
    await canary.untouched();
  });
});
