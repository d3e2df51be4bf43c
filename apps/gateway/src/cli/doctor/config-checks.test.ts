import { describe, expect, it } from 'vitest';
import { sharedDmWarning } from './config-checks.ts';

describe('doctor: DMs sharing one session', () => {
  it('warns when dmScope is "main" and more than one sender can reach the bot by DM', () => {
    expect(
      sharedDmWarning('main', { telegram: { botToken: 't', dmPolicy: 'allowlist', allowFrom: ['1', '2'] } }),
    ).toMatch(/channels\.telegram\.allowFrom lists 2 senders.*per-channel-peer/);
    expect(sharedDmWarning('main', { telegram: { botToken: 't' } })).toMatch(/admits DM senders by pairing/);
    expect(
      sharedDmWarning('main', { slack: { accounts: { work: { dmPolicy: 'open' } }, dmPolicy: 'allowlist' } }),
    ).toMatch(/channels\.slack\.accounts\.work\.dmPolicy is "open"/);
  });

  it('stays quiet for one allowed sender, or for per-sender scopes', () => {
    expect(
      sharedDmWarning('main', { telegram: { dmPolicy: 'allowlist', allowFrom: ['1'] } }),
    ).toBeUndefined();
    expect(sharedDmWarning('per-channel-peer', { telegram: { dmPolicy: 'open' } })).toBeUndefined();
    expect(sharedDmWarning('main', {})).toBeUndefined();
  });
});
