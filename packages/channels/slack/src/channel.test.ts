import { createPluginRegistry, noopLogger } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import plugin, { createSlackChannel, normalizeSlackAllowEntry, slackTextLimit } from './index.ts';

describe('the Slack channel plugin', () => {
  it('declares Slack’s capabilities', () => {
    const channel = createSlackChannel();
    expect(channel.id).toBe('slack');
    expect(channel.capabilities).toEqual({
      chatTypes: ['direct', 'group', 'channel'],
      threads: true,
      media: true,
      edits: true,
      typing: true,
      reactions: false,
      textLimit: 4000,
      markup: 'slack-mrkdwn',
    });
    expect(slackTextLimit).toBe(4000);
  });

  it('is the default export, registering the channel with the plugin registry', async () => {
    const registry = createPluginRegistry({ logger: noopLogger });
    await registry.register(plugin);
    expect(registry.channels().map((registration) => [registration.plugin, registration.channel.id])).toEqual(
      [['slack', 'slack']],
    );
  });

  it.each([
    ['U0ALICE', 'U0ALICE'],
    ['  slack:U0ALICE ', 'U0ALICE'],
    ['user:u0alice', 'U0ALICE'],
    ['<@U0ALICE>', 'U0ALICE'],
    ['<@U0ALICE|alice>', 'U0ALICE'],
    ['*', '*'],
    ['bob', 'bob'],
    ['alice@example.com', 'alice@example.com'],
  ])('normalizes the allowFrom entry %j to %j', (entry, id) => {
    expect(normalizeSlackAllowEntry(entry)).toBe(id);
    expect(createSlackChannel().normalizeAllowEntry?.(entry)).toBe(id);
  });
});
