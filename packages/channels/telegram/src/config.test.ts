import { resolveChannelAccounts } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { createTelegramChannel } from './channel.ts';

const channel = createTelegramChannel();

describe('channels.telegram configuration', () => {
  it('fills the defaults, strips a trailing slash from apiRoot, and adds the access fields', () => {
    const { accounts, warnings } = resolveChannelAccounts(channel, {
      botToken: ' 123456:AA-bb_CC ',
      apiRoot: 'http://127.0.0.1:8081///',
    });
    expect(warnings).toEqual([]);
    expect(accounts).toEqual([
      {
        accountId: 'default',
        path: 'channels.telegram',
        config: {
          botToken: '123456:AA-bb_CC',
          apiRoot: 'http://127.0.0.1:8081',
          pollingTimeoutSeconds: 30,
          editedMessages: 'ignore',
          mediaMaxMb: 20,
          mentionPatterns: [],
          linkPreview: true,
          sendRetry: { attempts: 4, maxWaitSeconds: 60 },
          enabled: true,
          dmPolicy: 'pairing',
          allowFrom: [],
          groupPolicy: 'allowlist',
          groups: {},
          requireMention: true,
        },
      },
    ]);
  });

  it('gives each account its own bot, inheriting the rest from the top level', () => {
    const { accounts } = resolveChannelAccounts(channel, {
      dmPolicy: 'allowlist',
      allowFrom: [12345],
      groups: { '-1001234': { requireMention: false } },
      accounts: {
        main: { botToken: '1:MAIN' },
        support: {
          botToken: '2:SUPPORT',
          dmPolicy: 'open',
          allowFrom: ['*'],
          webhook: { url: 'https://bot.example.com/tg' },
        },
      },
    });
    expect(
      accounts.map((account) => [account.accountId, account.config.botToken, account.config.dmPolicy]),
    ).toEqual([
      ['main', '1:MAIN', 'allowlist'],
      ['support', '2:SUPPORT', 'open'],
    ]);
    expect(accounts[0]?.config.allowFrom).toEqual(['12345']);
    expect(accounts[1]?.config.webhook).toEqual({ url: 'https://bot.example.com/tg' });
  });

  it('names every problem by key path', () => {
    expect(() =>
      resolveChannelAccounts(channel, {
        apiRoot: 'ftp://api',
        pollingTimeoutSeconds: 0,
        mentionPatterns: ['(unclosed'],
        webhook: { url: 'not a url', secretToken: 'has spaces' },
        accounts: { work: { botToken: 'not-a-token' }, home: {} },
      }),
    ).toThrowError(
      expect.objectContaining({
        code: 'PLUGIN_INVALID_CHANNEL_CONFIG',
        message: expect.stringMatching(
          /channels\.telegram\.accounts\.work\.botToken: expected a bot token like 123456789:AA…[\s\S]*channels\.telegram\.apiRoot: expected an http\(s\) URL[\s\S]*channels\.telegram\.pollingTimeoutSeconds[\s\S]*channels\.telegram\.webhook\.url: expected the public http\(s\) URL[\s\S]*channels\.telegram\.webhook\.secretToken: expected 1-256 characters[\s\S]*channels\.telegram\.mentionPatterns\[0\]: expected a valid regular expression[\s\S]*channels\.telegram\.accounts\.home\.botToken: expected the bot token from @BotFather/,
        ),
      }),
    );
  });

  it('warns about unknown keys instead of failing', () => {
    const { warnings } = resolveChannelAccounts(channel, { botToken: '1:A', tokenFile: '/x' });
    expect(warnings).toEqual(['channels.telegram.tokenFile: unknown key, ignored']);
  });
});
