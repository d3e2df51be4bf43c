import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { channelAccessConfigSchema, defineChannelConfig, resolveChannelAccounts } from './channel-config.ts';
import { PluginError } from './plugin-error.ts';

const telegram = {
  id: 'telegram',
  config: defineChannelConfig(
    z.object({
      botToken: z.string().min(1),
      apiRoot: z.string().default('https://api.telegram.org'),
      textChunkLimit: z.number().int().max(4096).optional(),
    }),
  ),
};

function resolveError(value: unknown): PluginError {
  try {
    resolveChannelAccounts(telegram, value, { plugin: 'telegram-plugin' });
  } catch (error) {
    expect(error).toBeInstanceOf(PluginError);
    expect((error as PluginError).code).toBe('PLUGIN_INVALID_CHANNEL_CONFIG');
    return error as PluginError;
  }
  throw new Error('expected an error');
}

describe('resolveChannelAccounts', () => {
  it('has no accounts when the channel is not configured', () => {
    expect(resolveChannelAccounts(telegram, undefined)).toEqual({ accounts: [], warnings: [] });
  });

  it('makes one default account from the top level, with the access defaults', () => {
    const { accounts, warnings } = resolveChannelAccounts(telegram, {
      botToken: '123:abc',
      allowFrom: [42, 'tg:7'],
    });
    expect(warnings).toEqual([]);
    expect(accounts).toEqual([
      {
        accountId: 'default',
        path: 'channels.telegram',
        config: {
          botToken: '123:abc',
          apiRoot: 'https://api.telegram.org',
          enabled: true,
          dmPolicy: 'pairing',
          allowFrom: ['42', 'tg:7'],
          groupPolicy: 'allowlist',
          groups: {},
          requireMention: true,
        },
      },
    ]);
  });

  it('makes one account per accounts entry, inheriting the top level shallowly', () => {
    const { accounts } = resolveChannelAccounts(telegram, {
      apiRoot: 'http://127.0.0.1:9000',
      dmPolicy: 'allowlist',
      allowFrom: ['1'],
      groups: { '-100': { requireMention: false } },
      accounts: {
        work: { botToken: 'w', groups: { '-200': {} } },
        home: { botToken: 'h', dmPolicy: 'open', enabled: false },
      },
    });
    expect(accounts.map((account) => [account.accountId, account.path])).toEqual([
      ['work', 'channels.telegram.accounts.work'],
      ['home', 'channels.telegram.accounts.home'],
    ]);
    expect(accounts[0]?.config).toMatchObject({
      botToken: 'w',
      apiRoot: 'http://127.0.0.1:9000',
      dmPolicy: 'allowlist',
      groups: { '-200': {} },
    });
    expect(accounts[1]?.config).toMatchObject({
      botToken: 'h',
      dmPolicy: 'open',
      enabled: false,
      allowFrom: ['1'],
    });
  });

  it('reports every problem with the key path where it must be fixed', () => {
    const error = resolveError({
      dmPolicy: 'friends',
      accounts: {
        work: { botToken: 'w', textChunkLimit: 9000 },
        home: {},
      },
    });
    expect(error.message).toContain('channel "telegram" (plugin "telegram-plugin")');
    const issues = (error.details?.issues ?? []) as Array<{ path: string }>;
    const paths = issues.map((issue) => issue.path);
    // The inherited bad value is reported once, where it is written.
    expect(paths).toEqual([
      'channels.telegram.accounts.work.textChunkLimit',
      'channels.telegram.dmPolicy',
      'channels.telegram.accounts.home.botToken',
    ]);
    expect(error.message).toContain('channels.telegram.accounts.home.botToken: Invalid input');
  });

  it('requires an allowFrom entry for the allowlist DM policy', () => {
    const error = resolveError({ botToken: 't', dmPolicy: 'allowlist' });
    expect(error.message).toContain(
      'channels.telegram.allowFrom: dmPolicy "allowlist" needs at least one sender id',
    );
  });

  it('rejects malformed blocks and account ids', () => {
    expect(resolveError('token').message).toContain('channels.telegram: expected an object');
    expect(resolveError({ accounts: ['a'] }).message).toContain(
      'channels.telegram.accounts: expected an object',
    );
    expect(resolveError({ botToken: 't', accounts: { 'bad id': {} } }).message).toContain(
      'channels.telegram.accounts.bad id: account ids use letters',
    );
  });

  it('warns about unknown keys instead of failing', () => {
    const { accounts, warnings } = resolveChannelAccounts(telegram, {
      botToken: 't',
      pollIntervall: 5,
      accounts: { main: { colour: 'blue' } },
    });
    expect(accounts).toHaveLength(1);
    expect(warnings).toEqual([
      'channels.telegram.pollIntervall: unknown key, ignored',
      'channels.telegram.accounts.main.colour: unknown key, ignored',
    ]);
  });

  it('uses a custom base path when given', () => {
    const error = (() => {
      try {
        resolveChannelAccounts(telegram, {}, { path: 'channels.tg' });
      } catch (caught) {
        return caught as PluginError;
      }
      return undefined;
    })();
    expect(error?.message).toContain('channels.tg.botToken');
  });
});

describe('defineChannelConfig', () => {
  it('refuses channel schemas that redeclare the standard access fields', () => {
    expect(() => defineChannelConfig(z.object({ dmPolicy: z.string() }))).toThrow(
      /reserved key\(s\) "dmPolicy"/,
    );
    expect(() => defineChannelConfig(z.object({ accounts: z.string() }))).toThrow(PluginError);
  });

  it('exposes the access vocabulary on its own', () => {
    expect(channelAccessConfigSchema.parse({})).toEqual({
      enabled: true,
      dmPolicy: 'pairing',
      allowFrom: [],
      groupPolicy: 'allowlist',
      groups: {},
      requireMention: true,
    });
    expect(channelAccessConfigSchema.safeParse({ dmPolicy: 'everyone' }).success).toBe(false);
  });
});
