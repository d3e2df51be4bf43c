import { PluginError, resolveChannelAccounts } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { createSlackChannel } from './channel.ts';

const channel = createSlackChannel();
const resolve = (value: unknown) => resolveChannelAccounts(channel, value);

describe('channels.slack configuration', () => {
  it('defaults to Socket Mode, slack.com, 20 MB media and the standard access defaults', () => {
    const { accounts, warnings } = resolve({ botToken: 'xoxb-1', appToken: 'xapp-1' });
    expect(warnings).toEqual([]);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({
      accountId: 'default',
      path: 'channels.slack',
      config: {
        mode: 'socket',
        botToken: 'xoxb-1',
        appToken: 'xapp-1',
        slackApiUrl: 'https://slack.com/api/',
        mediaMaxMb: 20,
        typingStatus: true,
        dmPolicy: 'pairing',
        groupPolicy: 'allowlist',
        requireMention: true,
        groups: {},
        channels: {},
      },
    });
  });

  it('needs an app token for Socket Mode and a signing secret for HTTP, naming the key path', () => {
    expect(() => resolve({ botToken: 'xoxb-1' })).toThrow(
      /channels\.slack\.appToken: mode "socket" needs an app-level token/,
    );
    expect(() =>
      resolve({
        slackApiUrl: 'http://127.0.0.1:1/api',
        accounts: { work: { mode: 'http', botToken: 'xoxb-2' } },
      }),
    ).toThrow(/channels\.slack\.accounts\.work\.signingSecret: mode "http" needs the app's signingSecret/);
    try {
      resolve({ mode: 'bogus', botToken: '' });
      expect.unreachable();
    } catch (error) {
      expect(PluginError.isInstance(error)).toBe(true);
      expect((error as PluginError).code).toBe('PLUGIN_INVALID_CHANNEL_CONFIG');
      expect((error as Error).message).toMatch(/channels\.slack\.mode/);
      expect((error as Error).message).toMatch(/channels\.slack\.botToken/);
    }
  });

  it('adds the trailing slash the Web API client needs to slackApiUrl', () => {
    const [account] = resolve({
      botToken: 'x',
      appToken: 'y',
      slackApiUrl: 'http://127.0.0.1:9/api',
    }).accounts;
    expect(account?.config.slackApiUrl).toBe('http://127.0.0.1:9/api/');
  });

  it('maps channels.<id> (requireMention, users) onto the standard groups, groups winning on a clash', () => {
    const [account] = resolve({
      botToken: 'x',
      appToken: 'y',
      channels: {
        C0OPEN: { requireMention: false },
        C0TEAM: { users: ['U1', 'U2'] },
        C0BOTH: { requireMention: false },
      },
      groups: { C0BOTH: { requireMention: true } },
    }).accounts;
    expect(account?.config.groups).toEqual({
      C0OPEN: { requireMention: false },
      C0TEAM: { allowFrom: ['U1', 'U2'] },
      C0BOTH: { requireMention: true },
    });
  });

  it('runs several workspaces as accounts inheriting the top level, each with its own mode', () => {
    const { accounts } = resolve({
      slackApiUrl: 'http://127.0.0.1:9/api/',
      dmPolicy: 'open',
      accounts: {
        acme: { mode: 'http', botToken: 'xoxb-a', signingSecret: 's-a' },
        globex: { botToken: 'xoxb-g', appToken: 'xapp-g', webhookPath: '/ignored-in-socket-mode' },
      },
    });
    expect(
      accounts.map((account) => [account.accountId, account.config.mode, account.config.dmPolicy]),
    ).toEqual([
      ['acme', 'http', 'open'],
      ['globex', 'socket', 'open'],
    ]);
    expect(accounts.every((account) => account.config.slackApiUrl === 'http://127.0.0.1:9/api/')).toBe(true);
  });

  it('rejects a webhook path with a query and warns about unknown keys', () => {
    expect(() => resolve({ mode: 'http', botToken: 'x', signingSecret: 's', webhookPath: '/a?b=1' })).toThrow(
      /channels\.slack\.webhookPath: must start with "\/" and have no query string/,
    );
    const { warnings } = resolve({ botToken: 'x', appToken: 'y', botTokn: 'typo' });
    expect(warnings).toEqual(['channels.slack.botTokn: unknown key, ignored']);
  });
});
