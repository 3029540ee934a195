// Buttons and slash commands through the fake, answered by the real discord.js interaction methods,
// including Discord's refusals (double acknowledgement, the 3-second deadline).
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  DiscordAPIError,
  Events,
  MessageFlags,
  type Client,
  type Interaction,
  type TextChannel,
} from 'discord.js';
import { describe, expect, it } from 'vitest';
import type { FakeDiscord } from './fake-discord.ts';
import { ALICE, DM, GENERAL, connected } from './harness.ts';

async function postApproval(client: Client, fake: FakeDiscord): Promise<string> {
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId('approve:42').setLabel('Approve').setStyle(ButtonStyle.Success),
    new ButtonBuilder().setCustomId('deny:42').setLabel('Deny').setStyle(ButtonStyle.Danger),
  );
  const sent = await (client.channels.cache.get(GENERAL) as TextChannel).send({
    content: 'Run `ls`?',
    components: [row],
  });
  expect(fake.messages(GENERAL)[0]?.components[0].components).toHaveLength(2);
  return sent.id;
}

/** Runs `handle` on the next interaction and resolves with what it returned (or threw). */
function onNextInteraction<T>(client: Client, handle: (i: Interaction) => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    client.once(Events.InteractionCreate, (i) => {
      handle(i).then(resolve, reject);
    });
  });
}

describe('fake discord interactions', () => {
  it('button click → interaction.update() edits the message; a second answer gets 40060', async () => {
    const { fake, client } = await connected();
    const messageId = await postApproval(client, fake);
    const handled = onNextInteraction(client, async (i) => {
      if (!i.isButton()) throw new Error('expected a button');
      await i.update({ content: `Approved by ${i.user.username}`, components: [] });
    });
    const click = fake.clickButton({ channelId: GENERAL, messageId, user: ALICE, customId: 'approve:42' });
    await handled;
    const msg = fake.messages(GENERAL)[0];
    expect(msg).toMatchObject({ id: messageId, content: 'Approved by alice', components: [] });
    expect(msg?.edits).toHaveLength(1);
    expect(fake.interactionResponses(click.id).callbacks.map((c) => c.type)).toEqual([7]);
    // discord.js refuses a second answer locally, so answer directly, as a second process holding the token would.
    const res = await fetch(`${fake.api}/v10/interactions/${click.id}/${click.token}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 6 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: 40060, message: 'Interaction has already been acknowledged.' });
  });

  it('button click → deferUpdate() + editReply() edits the same message', async () => {
    const { fake, client } = await connected();
    const messageId = await postApproval(client, fake);
    const handled = onNextInteraction(client, async (i) => {
      if (!i.isButton()) throw new Error('expected a button');
      await i.deferUpdate();
      await i.editReply({ content: 'Denied', components: [] });
    });
    const click = fake.clickButton({ channelId: GENERAL, messageId, user: ALICE, customId: 'deny:42' });
    await handled;
    const r = fake.interactionResponses(click.id);
    expect(r.callbacks.map((c) => c.type)).toEqual([6]);
    expect(r.originalEdits).toHaveLength(1);
    expect(r.original).toMatchObject({ id: messageId, content: 'Denied', components: [] });
    expect(fake.messages(GENERAL)).toHaveLength(1);
  });

  it('an interaction answered after the deadline gets 404 Unknown interaction (10062)', async () => {
    const { fake, client } = await connected({ interactionDeadlineMs: 200 });
    const messageId = await postApproval(client, fake);
    const handled = onNextInteraction(client, async (i) => {
      if (!i.isButton()) throw new Error('expected a button');
      await new Promise((r) => setTimeout(r, 300));
      return i.update({ content: 'too late' }).catch((e: unknown) => e);
    });
    fake.clickButton({ channelId: GENERAL, messageId, user: ALICE, customId: 'approve:42' });
    const err = await handled;
    expect(err).toBeInstanceOf(DiscordAPIError);
    expect(err).toMatchObject({ status: 404, code: 10062 });
    expect(fake.messages(GENERAL)[0]?.content).toBe('Run `ls`?');
  });

  it('refuses to click a button that is not on the message', async () => {
    const { fake, client } = await connected();
    const messageId = await postApproval(client, fake);
    expect(() => fake.clickButton({ channelId: GENERAL, messageId, user: ALICE, customId: 'nope' })).toThrow(
      /no button/,
    );
  });

  it('slash command (registered via PUT) → ephemeral reply with flags 64 and an ephemeral follow-up', async () => {
    const { fake, client } = await connected();
    await client.application?.commands.set([
      {
        name: 'status',
        description: 'Show status',
        options: [{ type: 3, name: 'scope', description: 'What', required: true }],
      },
    ]);
    expect(fake.commands()).toMatchObject([{ name: 'status', application_id: fake.applicationId }]);
    const handled = onNextInteraction(client, async (i) => {
      if (!i.isChatInputCommand()) throw new Error('expected a slash command');
      await i.reply({ content: `scope=${i.options.getString('scope', true)}`, flags: MessageFlags.Ephemeral });
      await i.followUp({ content: 'details', flags: MessageFlags.Ephemeral });
    });
    const cmd = fake.slashCommand({ name: 'status', options: { scope: 'all' }, user: ALICE, channelId: GENERAL });
    await handled;
    const r = fake.interactionResponses(cmd.id);
    expect(r.callbacks).toMatchObject([{ type: 4, data: { content: 'scope=all', flags: 64 } }]);
    expect(r.original).toMatchObject({ content: 'scope=all', flags: 64 });
    expect(r.followUps).toMatchObject([{ content: 'details', flags: 64 }]);
    expect(fake.messages(GENERAL)).toEqual([]); // ephemeral: nobody else sees them in the channel
  });

  it('slash command in a DM → deferReply() + editReply() fills the deferred message', async () => {
    const { fake, client } = await connected();
    await client.application?.commands.set([{ name: 'ask', description: 'Ask Kazma' }]);
    fake.sendUserMessage({ channelId: DM, author: ALICE, content: 'hello', guild: false });
    const handled = onNextInteraction(client, async (i) => {
      if (!i.isChatInputCommand()) throw new Error('expected a slash command');
      expect(i.guildId).toBeNull();
      await i.deferReply();
      await i.editReply('thought about it');
    });
    const cmd = fake.slashCommand({ name: 'ask', user: ALICE, channelId: DM });
    await handled;
    const r = fake.interactionResponses(cmd.id);
    expect(r.callbacks.map((c) => c.type)).toEqual([5]);
    expect(r.original).toMatchObject({ content: 'thought about it', flags: 0 });
    expect(fake.messages(DM).map((m) => m.content)).toEqual(['hello', 'thought about it']);
  });
});
