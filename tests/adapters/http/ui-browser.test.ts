// The web page in a real browser: Debian's Chromium driven by playwright-core, against one Kazma assembled as
// `kazma start` assembles it, with Telegram (the fake Bot API) and the fake model. A decision on the page is
// the one first-decision-wins decision (the tool runs once, the Telegram card is edited), a tap on Telegram
// redraws the open page without a reload, forms without the session or CSRF token change nothing, and the
// arguments are shown whole. Screenshots of each page, at desktop and phone width, go to tests/.artifacts/ui.
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateAttempts } from '../../../src/core/approvals/index.ts';
import { sealFolder } from '../../../src/core/skills/index.ts';
import { startFakeLlm, type FakeLlm } from '../../fakes/llm-server.ts';
import { startFakeTelegram, type FakeTelegram } from '../../fakes/telegram/index.ts';
import { launch, launchTool } from '../../approvals/helpers.ts';
import { everythingHttp } from '../../mcp/servers.ts';
import { SECRET, sign, skillsRoot, toolSource, writeSkill } from '../../skills/skill-folders.ts';
import { startAssembled, type Assembled } from '../../helpers/assembled.ts';
import { eventually } from '../../helpers/eventually.ts';
import { REPO_ROOT } from '../../helpers/repo-root.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(REPO_ROOT, 'tests/.artifacts/ui');
const MAYA_TOKEN = 'maya-web-token-0123456789abcdef';
const MAYA = { id: 42, first_name: 'Maya' };
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

let llm: FakeLlm;
let telegram: FakeTelegram;
let k: Assembled;
let browser: Browser;
let base: string;
const tool = launchTool();

const skills = skillsRoot();
const agentSkills = skillsRoot();

/** An Agent Skill folder: SKILL.md with its front matter. */
function writeAgentSkill(name: string, description: string): string {
  const dir = join(agentSkills, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nSteps.\n`);
  return dir;
}

beforeAll(async () => {
  [llm, telegram] = await Promise.all([startFakeLlm(), startFakeTelegram()]);
  // One skill signed with this install's secret (verified), one changed after signing (refused).
  sign(writeSkill(skills, 'greeter', { tools: [toolSource('greet')] }));
  const tampered = writeSkill(skills, 'tampered', { tools: [toolSource('tampered_tool')] });
  sign(tampered);
  appendFileSync(join(tampered, 'lib/words.mjs'), 'export const leak = 1;\n');
  // Agent Skills: one sealed as `kazma agent-skills install` seals, one written by hand, one edited after.
  sealFolder(writeAgentSkill('release-notes', 'Use when asked for release notes.'), SECRET, 'github:acme/notes');
  writeAgentSkill('arabic-summary', 'لخّص الاجتماع بالعربية في خمس نقاط');
  const edited = writeAgentSkill('edited-later', 'Use when asked to deploy.');
  sealFolder(edited, SECRET, 'npm:@acme/deploy-skill');
  appendFileSync(join(edited, 'SKILL.md'), 'Also push to production.\n');
  k = await startAssembled(
    {
      model: { name: 'fake-model', base_url: llm.baseURL, max_retries: 1 },
      access: { operators: [{ name: 'maya', telegram: String(MAYA.id), api_token: MAYA_TOKEN }] },
      telegram: { enabled: true, token: telegram.token, api_root: telegram.apiRoot },
      // No worker takes tasks: they stay queued (to cancel one, and for another to stall into an incident).
      jobs: { concurrency: { swarm: 0 } },
      runs: { stall_after: { task: '1s' } },
      skills: { paths: [skills], agent_paths: [agentSkills] },
    },
    { tools: [tool.tool], env: { KAZMA_SECRET: SECRET, KAZMA_VAULT_KEY: 'ui-browser-test-vault-key' } },
  );
  base = `http://127.0.0.1:${k.kazma.http.port}`;
  // Root in a container: Chromium's own sandbox needs user namespaces it may not get.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await k?.close();
  await Promise.all([llm?.close(), telegram?.close()]);
  rmSync(skills, { recursive: true, force: true });
  rmSync(agentSkills, { recursive: true, force: true });
});

/** A signed-in page at `path` (a context of its own: its own cookie). */
async function signedIn(path = '/ui/approvals', viewport = DESKTOP): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${base}/ui/sign-in`);
  await page.fill('input[name=token]', MAYA_TOKEN);
  await Promise.all([page.waitForURL(`${base}/ui/approvals`), page.click('button[type=submit]')]);
  if (path !== '/ui/approvals') await page.goto(`${base}${path}`);
  return { page, context };
}

/** Maya asks on Telegram for a launch; returns the gate's id and its Telegram card. */
async function gateFromTelegram(args: { target: string; payload?: string }) {
  llm.script(launch(args));
  telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: `launch ${args.target}` });
  const card = await eventually(
    async () => telegram.messages(MAYA.id),
    (ms) => ms.find((m) => m.reply_markup && m.text?.includes(args.target)),
    'the Telegram card',
  );
  // A card too long for Telegram has Show all and Deny only: the gate's id is in every button.
  const buttons = card.reply_markup!.inline_keyboard.flat().map((b) => b.callback_data ?? '');
  const once = buttons.find((data) => data.endsWith(':once'));
  return { gateId: buttons[0]!.split(':')[1]!, card, once: once ?? '' };
}

/** The screenshots taken of each signed-in page: its file name and address. */
const SCREENS = [
  ['approvals', '/ui/approvals'],
  ['history', '/ui/history'],
  ['tasks', '/ui/tasks'],
  ['schedules', '/ui/tasks#schedules'],
  ['incidents', '/ui/incidents'],
  ['tools', '/ui/tools'],
  ['settings', '/ui/settings'],
] as const;

/**
 * What an operator's day leaves on the page, for the screenshots: requests from two chats (one in Arabic)
 * waiting beside the one from Telegram, a running task and a stalled one (its incident), a reminder and
 * a cron job.
 */
async function realisticContent(): Promise<void> {
  const requester = { platform: 'telegram', id: String(MAYA.id), displayName: 'Maya' };
  const origin = `telegram:${MAYA.id}` as const;
  const ask = (thread: string, tool: string, tier: 'write' | 'danger', args: Record<string, unknown>) =>
    k.kazma.core.approvals.open({
      threadId: thread,
      interruptId: `${thread}-1`,
      chat: origin,
      requester,
      call: { kind: 'tool_approval', callId: `${thread}-c`, tool, args, tier, reason: `"${tool}" is a ${tier} tool` },
    });
  await gateFromTelegram({ target: 'أرسل التقرير إلى الفريق', payload: 'مرحبا بالعالم — hello' });
  await ask('deploy', 'shell', 'danger', { command: 'kubectl rollout restart deployment/api -n production' });
  await ask('invoices', 'send_message', 'write', {
    to: 'slack:C024BE91L',
    text: 'The Q3 invoices are reconciled: 3 differences, listed in the thread.',
  });
  // The history: a Deny with its reason, and an Approve that came second (lost).
  const cleanup = await ask('cleanup', 'shell', 'danger', { command: 'rm -rf build/ releases/' });
  const decide = (decision: 'once' | 'deny', platform: string, reason?: string) =>
    k.kazma.core.approvals.decide({
      gateId: cleanup.gateId,
      decision,
      actor: { ...requester, platform, ...(platform === 'web' && { id: 'maya', displayName: 'maya' }) },
      ...(reason && { reason }),
    });
  await decide('deny', 'telegram', 'releases/ must stay');
  await decide('once', 'web');
  await k.kazma.core.tasks.start({ goal: 'Compare the Q3 invoices with the ledger', origin, requester });
  await k.kazma.core.tasks.start({ goal: 'ترجم دليل المستخدم إلى العربية', origin, requester });
  await k.kazma.core.schedules.remind({ words: 'tomorrow at 9:00 send the weekly report', chat: origin, requester });
  await k.kazma.core.schedules.addCron({ pattern: '0 8 * * 1-5', prompt: 'لخّص رسائل الأمس', chat: origin, requester });
  let opened = 0;
  await eventually(
    async () => (opened += (await k.kazma.core.supervisor.sweep()).opened),
    (n) => n >= 2,
    'an incident for each stalled task',
  );
}

describe('the web page in Chromium', () => {
  it('shows nothing before sign-in and refuses a wrong token', async () => {
    await gateFromTelegram({ target: 'before-sign-in' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/ui/approvals`);
    expect(new URL(page.url()).pathname).toBe('/ui/sign-in');
    expect(await page.content()).not.toContain('before-sign-in');
    await page.fill('input[name=token]', 'not-a-token-of-anyone-at-all');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('.notice')).toContain('not an operator');
    expect(new URL(page.url()).pathname).toBe('/ui/sign-in');
    await context.close();
  });

  it('approves from the page: the tool runs once and the Telegram card says who decided where', async () => {
    const { gateId, card } = await gateFromTelegram({ target: 'from-the-page' });
    const { page, context } = await signedIn();
    const article = page.locator(`article[data-gate="${gateId}"]`);
    await article.locator('button[value=once]').click();
    await expect.poll(() => page.textContent('.notice')).toContain(`Approved: launch (gate ${gateId})`);
    const edited = await eventually(
      async () => telegram.messages(MAYA.id),
      (ms) => ms.find((m) => m.message_id === card.message_id && !m.reply_markup),
      'the Telegram card edited',
    );
    expect(edited.text).toMatch(/Approved once by maya on the web page at \d\d:\d\d UTC/);
    await k.settled();
    expect(tool.runs.filter((r) => r.target === 'from-the-page')).toHaveLength(1);
    await context.close();
  });

  it('a tap on Telegram shows on the open page within 2 s, without a reload', async () => {
    const { gateId, card, once } = await gateFromTelegram({ target: 'tapped-on-telegram' });
    const { page, context } = await signedIn();
    await page.waitForSelector('body[data-live=on]');
    await page.waitForSelector(`article[data-gate="${gateId}"]`);
    await page.evaluate(() => Object.assign(window, { kazmaMarker: 'same document' }));
    telegram.tapButton({ chatId: MAYA.id, messageId: card.message_id, from: MAYA, data: once });
    await page.waitForSelector(`article[data-gate="${gateId}"]`, { state: 'detached', timeout: 2_000 });
    expect(await page.evaluate(() => (window as unknown as { kazmaMarker?: string }).kazmaMarker)).toBe(
      'same document',
    );
    // The history shows the win, on Telegram.
    await page.goto(`${base}/ui/history?gate=${gateId}`);
    expect(await page.textContent(`tr[data-gate="${gateId}"][data-outcome=won]`)).toContain('Telegram');
    await context.close();
  });

  it('a replayed POST without the session or without the CSRF token changes nothing', async () => {
    const { gateId } = await gateFromTelegram({ target: 'replayed' });
    const { page, context } = await signedIn();
    const csrf = await page.getAttribute(`article[data-gate="${gateId}"] input[name=_csrf]`, 'value');
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const post = (headers: Record<string, string>, body: Record<string, string>) =>
      fetch(`${base}/ui/approvals/${gateId}`, { method: 'POST', headers, body: new URLSearchParams(body) });
    expect((await post({ origin: base }, { decision: 'once', _csrf: csrf! })).status).toBe(401);
    expect((await post({ origin: base, cookie }, { decision: 'once' })).status).toBe(403);
    expect((await k.kazma.core.approvals.get(gateId))?.state).toBe('pending');
    expect(tool.runs.filter((r) => r.target === 'replayed')).toHaveLength(0);
    await context.close();
  });

  it('shows arguments with U+202E and 5,000 characters whole, the override escaped', async () => {
    const payload = `abc\u202Efed${'x'.repeat(5_000)}`;
    const { gateId } = await gateFromTelegram({ target: 'whole-arguments', payload });
    const { page, context } = await signedIn();
    const text = (await page.textContent(`article[data-gate="${gateId}"] dl`))!;
    expect(text).toContain(`abc\\u202Efed${'x'.repeat(5_000)}`);
    expect(text).not.toContain('\u202E');
    await context.close();
  });

  it('cancels a task, dismisses an incident and switches a tool off', async () => {
    const requester = { platform: 'telegram', id: String(MAYA.id), displayName: 'Maya' };
    const origin = `telegram:${MAYA.id}` as const;
    const doomed = await k.kazma.core.tasks.start({ goal: 'count the stars', origin, requester });
    const stuck = await k.kazma.core.tasks.start({ goal: 'map the sea', origin, requester });
    const { page, context } = await signedIn('/ui/tasks');
    await page.locator(`article[data-task="${doomed.id}"] button`).click();
    await expect.poll(() => page.getAttribute(`article[data-task="${doomed.id}"]`, 'data-state')).toBe('cancelled');
    expect((await k.kazma.core.tasks.get(doomed.id))?.state).toBe('cancelled');

    // The other stays queued past runs.stall_after.task: the supervisor opens an incident with its card.
    await eventually(
      () => k.kazma.core.supervisor.sweep(),
      (r) => r.opened > 0,
      'an incident for the stuck task',
    );
    await page.goto(`${base}/ui/incidents`);
    const incident = page.locator('article[data-incident]', { hasText: stuck.id });
    await incident.locator('button[value=dismiss]').click();
    await expect.poll(() => page.textContent('.notice')).toContain('dismiss');
    expect(await page.locator('article[data-incident]', { hasText: stuck.id }).count()).toBe(0);

    await page.goto(`${base}/ui/tools`);
    await page.locator('tr[data-tool=launch] button').click();
    await expect.poll(() => page.getAttribute('tr[data-tool=launch]', 'data-on')).toBe('false');
    expect(k.kazma.core.tools.disabled.has('launch')).toBe(true);
    await page.locator('tr[data-tool=launch] button').click();
    await expect.poll(() => page.getAttribute('tr[data-tool=launch]', 'data-on')).toBe('true');
    await context.close();
  });

  it('the tools page shows each skill verified or refused, and adds a remote MCP server after trying it', async () => {
    const { page, context } = await signedIn('/ui/tools');
    expect(await page.getAttribute('tr[data-skill=greeter]', 'data-status')).toBe('verified');
    expect(await page.getAttribute('tr[data-skill=tampered]', 'data-status')).toBe('refused');
    expect(await page.textContent('tr[data-skill=tampered]')).toContain('does not match its checksum');
    const server = await everythingHttp();
    try {
      const form = page.locator('form#add-mcp');
      await form.locator('input[name=name]').fill('remote');
      await form.locator('input[name=url]').fill(server.url);
      await form.locator('input[name=bearer]').fill('remote-bearer-secret-0123456789');
      await form.locator('button[type=submit]').click();
      await expect
        .poll(() => page.textContent('.notice'), { timeout: 30_000 })
        .toMatch(/Saved MCP server "remote" with \d+ tools/);
      expect(await page.textContent('.notice')).toContain('moved into the vault: auth.bearer');
      // The running Kazma follows the settings and starts it.
      await expect
        .poll(async () => (await page.reload(), page.getAttribute('article[data-server=remote]', 'data-state')), {
          timeout: 20_000,
        })
        .toBe('running');
      expect(await page.content()).not.toContain('remote-bearer-secret-0123456789');
    } finally {
      await server.stop();
    }
    await context.close();
  });

  it('the tools page lists each Agent Skill with its verdict, whether it is offered and its source', async () => {
    const { page, context } = await signedIn('/ui/tools');
    const row = (name: string) => page.locator(`tr[data-agent-skill="${name}"]`);
    expect(await row('release-notes').getAttribute('data-status')).toBe('verified');
    expect(await row('release-notes').textContent()).toContain('installed from github:acme/notes');
    expect(await row('release-notes').locator('td').nth(2).textContent()).toBe('yes');
    expect(await row('arabic-summary').getAttribute('data-status')).toBe('unsigned');
    expect(await row('arabic-summary').textContent()).toContain('لخّص الاجتماع بالعربية');
    expect(await row('arabic-summary').textContent()).toContain(`found in ${join(agentSkills, 'arabic-summary')}`);
    expect(await row('edited-later').getAttribute('data-status')).toBe('refused');
    expect(await row('edited-later').textContent()).toContain('SKILL.md changed since it was signed');
    expect(await row('edited-later').locator('td').nth(2).textContent()).toBe('no');
    await context.close();
  });

  it('the settings page lists what /config changed at run time, by whom and when', async () => {
    const before = telegram.messages(MAYA.id).length;
    telegram.sendUserMessage({ chatId: MAYA.id, from: MAYA, text: '/config prompt set --here Answer in verse — شعراً' });
    await eventually(
      async () => telegram.messages(MAYA.id).slice(before),
      (ms) => ms.find((m) => m.text?.includes('in this chat')),
      'the /config reply',
    );
    const { page, context } = await signedIn('/ui/settings');
    const row = page.locator(`tr[data-key="prompt@telegram:${MAYA.id}"]`);
    expect(await row.textContent()).toContain('Answer in verse — شعراً');
    expect(await row.locator('.by').textContent()).toBe('Maya');
    expect(await row.locator('.at').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d/);
    const change = page.locator('tr[data-change]', { hasText: '/config prompt set' }).first();
    expect(await change.locator('.by').textContent()).toBe('maya');
    expect(await change.textContent()).toContain('Telegram');
    expect(await change.textContent()).toContain('Answer in verse');
    await context.close();
  });

  it('takes screenshots of every page at desktop and phone width, Arabic content right to left', async () => {
    await realisticContent();
    for (const [width, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const anonymous = await browser.newContext({ viewport });
      const signIn = await anonymous.newPage();
      await signIn.goto(`${base}/ui/sign-in`);
      await signIn.screenshot({ path: join(SHOTS, `sign-in-${width}.png`), fullPage: true });
      if (width === 'desktop') await signIn.screenshot({ path: join(SHOTS, 'readme-sign-in.png') });
      await anonymous.close();
      const { page, context } = await signedIn('/ui/approvals', viewport);
      for (const [name, path] of SCREENS) {
        await page.goto(`${base}${path}`);
        // The schedules are a part of the tasks page: its shot is of that part.
        const shot = { path: join(SHOTS, `${name}-${width}.png`) };
        if (name === 'schedules') await page.locator('#schedules').screenshot(shot);
        else await page.screenshot({ ...shot, fullPage: true });
        // Nothing is wider than the screen: the page never scrolls sideways.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect([name, width, overflow]).toEqual([name, width, 0]);
      }
      // One screen of each at desktop width, as the README shows them (the tools page at its skills).
      if (width === 'desktop')
        for (const [name, path] of SCREENS) {
          await page.goto(`${base}${name === 'tools' ? '/ui/tools#skills' : path}`);
          if (name === 'schedules')
            await page.locator('#schedules').screenshot({ path: join(SHOTS, `readme-${name}.png`) });
          else await page.screenshot({ path: join(SHOTS, `readme-${name}.png`) });
        }
      else {
        await page.goto(`${base}/ui/approvals`);
        await page.screenshot({ path: join(SHOTS, 'readme-approvals-phone.png') });
      }
      // What each screenshot is of is on it: the Arabic request, right to left, and each page's own rows.
      await page.goto(`${base}/ui/approvals`);
      const arabic = page.locator('article[data-gate]', { hasText: 'أرسل التقرير إلى الفريق' });
      expect(await arabic.locator('h3').getAttribute('dir')).toBe('auto');
      expect(
        await arabic
          .locator('pre')
          .first()
          .evaluate((pre) => getComputedStyle(pre).unicodeBidi),
      ).toBe('plaintext');
      expect(await page.locator('article[data-gate]', { hasText: 'kubectl rollout restart' }).count()).toBe(1);
      await page.goto(`${base}/ui/tasks`);
      expect(await page.locator('article[data-schedule]', { hasText: 'لخّص رسائل الأمس' }).count()).toBe(1);
      expect(await page.locator('article[data-task]', { hasText: 'Compare the Q3 invoices' }).count()).toBe(1);
      await page.goto(`${base}/ui/incidents`);
      expect(await page.locator('article[data-incident]').count()).toBeGreaterThan(0);
      await context.close();
    }
  });

  it('switches an MCP server off and removes it, as kazma mcp remove does; a form without CSRF does neither', async () => {
    const { page, context } = await signedIn('/ui/tools');
    const card = page.locator('article[data-server=remote]');
    expect(await card.getAttribute('data-on')).toBe('true');
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const forged = await fetch(`${base}/ui/mcp/remote/remove`, { method: 'POST', headers: { origin: base, cookie } });
    expect(forged.status).toBe(403);
    await card.locator('button[name=switch]').click();
    await expect.poll(() => page.getAttribute('article[data-server=remote]', 'data-on')).toBe('false');
    expect(await page.textContent('.notice')).toContain('MCP server remote is off');
    await page.locator('article[data-server=remote] button[name=remove]').click();
    await expect.poll(() => page.textContent('.notice')).toContain('Removed MCP server "remote"');
    expect(await page.locator('article[data-server=remote]').count()).toBe(0);
    // Saved where the CLI saves them: the switch, and the name on the removed list.
    await page.goto(`${base}/ui/settings`);
    expect(await page.textContent('tr[data-key="mcp.server_switches"]')).toMatch(/"remote": false/);
    expect(await page.textContent('tr[data-key="mcp.removed_servers"]')).toContain('remote');
    await context.close();
  });

  it('pages the pending approvals: 50 a page, how many in all, next and previous, kept live', async () => {
    const requester = { platform: 'telegram', id: String(MAYA.id), displayName: 'Maya' };
    // Chatless gates but the first: no cards anywhere, only the page (and /approvals) shows them.
    const gates = [];
    for (let i = 0; i < 60; i++)
      gates[i] = await k.kazma.core.approvals.open({
        threadId: 'paging',
        interruptId: `paging-${i}`,
        ...(i === 0 && { chat: `telegram:${MAYA.id}` as const }),
        requester,
        call: {
          kind: 'tool_approval',
          callId: `p${i}`,
          tool: 'launch',
          args: { target: `paged-${i}` },
          tier: 'danger',
          reason: '',
        },
      });
    const total = (await k.kazma.core.approvals.list()).length;
    expect(total).toBeGreaterThanOrEqual(60);
    const { page, context } = await signedIn();
    await page.waitForSelector('body[data-live=on]');
    expect(await page.locator('article[data-gate]').count()).toBe(50);
    expect(await page.textContent('.paging')).toContain(`Showing 1–50 of ${total} pending`);
    expect(await page.locator('a[rel=prev]').count()).toBe(0);
    await Promise.all([page.waitForURL(`${base}/ui/approvals?page=2`), page.click('a[rel=next]')]);
    expect(await page.locator('article[data-gate]').count()).toBe(total - 50);
    expect(await page.textContent('.paging')).toContain(`Showing 51–${total} of ${total} pending`);
    expect(await page.textContent('main')).toContain('paged-59');
    expect(await page.locator('a[rel=next]').count()).toBe(0);
    // A decision elsewhere (its card edited on Telegram) redraws page 2, still page 2, one fewer in all.
    await k.kazma.core.approvals.decide({ gateId: gates[0]!.gateId, decision: 'deny', actor: requester, reason: 'x' });
    await expect.poll(() => page.textContent('.paging')).toContain(`of ${total - 1} pending`);
    expect(new URL(page.url()).search).toBe('?page=2');
    await Promise.all([page.waitForURL(`${base}/ui/approvals`), page.click('a[rel=prev]')]);
    expect(await page.locator('article[data-gate]').count()).toBe(50);
    // A page past the end shows the last one.
    await page.goto(`${base}/ui/approvals?page=99`);
    expect(await page.textContent('.paging')).toContain(`Showing 51–${total - 1} of ${total - 1} pending`);
    await k.kazma.core.approvals.supersede('paging', 'the paging test is over');
    await context.close();
  });

  it('pages the history 50 at a time, newest first, keeping the filters across pages', async () => {
    const requester = { platform: 'telegram', id: String(MAYA.id), displayName: 'Maya' };
    for (let i = 0; i < 60; i++)
      await k.kazma.core.approvals.open({
        threadId: 'history-paging',
        interruptId: `history-${i}`,
        requester,
        call: {
          kind: 'tool_approval',
          callId: `h${i}`,
          tool: 'launch',
          args: { target: `h-${i}` },
          tier: 'danger',
          reason: '',
        },
      });
    await k.kazma.core.approvals.supersede('history-paging', 'the history test');
    const superseded = (await gateAttempts(k.database.db, { limit: 10_000, outcome: 'superseded' })).map(
      (a) => a.gateId,
    );
    expect(superseded.length).toBeGreaterThanOrEqual(60);
    const { page, context } = await signedIn('/ui/history?outcome=superseded');
    const shown = () => page.$$eval('tbody tr', (rows) => rows.map((row) => row.getAttribute('data-gate')));
    const outcomes = () => page.$$eval('tbody tr', (rows) => rows.map((row) => row.getAttribute('data-outcome')));
    expect(await shown()).toEqual(superseded.slice(0, 50));
    expect(await page.locator('a[rel=prev]').count()).toBe(0);
    await page.click('a[rel=next]');
    await page.waitForURL(/before=/);
    expect(new URL(page.url()).searchParams.get('outcome')).toBe('superseded');
    expect(await page.inputValue('select[name=outcome]')).toBe('superseded');
    expect(await shown()).toEqual(superseded.slice(50, 100));
    expect(new Set(await outcomes())).toEqual(new Set(['superseded']));
    await page.click('a[rel=prev]');
    await page.waitForURL(/after=/);
    expect(new URL(page.url()).searchParams.get('outcome')).toBe('superseded');
    expect(await shown()).toEqual(superseded.slice(0, 50));
    await context.close();
  });

  it('rate-limits sign-in: after five wrong tokens even the right one waits', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/ui/sign-in`);
    for (let i = 0; i < 5; i++) {
      await page.fill('input[name=token]', `wrong-token-${i}-000000000000`);
      await page.click('button[type=submit]');
      await page.waitForSelector('.notice');
    }
    await page.fill('input[name=token]', MAYA_TOKEN);
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('.notice')).toContain('Too many failed sign-ins');
    expect(new URL(page.url()).pathname).toBe('/ui/sign-in');
    await context.close();
  });
});
