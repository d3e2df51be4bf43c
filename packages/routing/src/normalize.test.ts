import { describe, expect, it } from 'vitest';
import {
  normalizeAccountId,
  normalizeAgentId,
  normalizeMainKey,
  normalizePeerKind,
  normalizeRouteId,
  normalizeToken,
} from './normalize.ts';

describe('normalize', () => {
  it('agent ids: safe ids are lowercased, others slugged, empty becomes main', () => {
    expect(normalizeAgentId('Work')).toBe('work');
    expect(normalizeAgentId('  My Agent!! ')).toBe('my-agent');
    expect(normalizeAgentId('../../etc')).toBe('etc');
    expect(normalizeAgentId('SupportTeam')).toBe('supportteam');
    expect(normalizeAgentId('')).toBe('main');
    expect(normalizeAgentId('   ')).toBe('main');
    expect(normalizeAgentId(null)).toBe('main');
    expect(normalizeAgentId(undefined)).toBe('main');
    expect(normalizeAgentId('!!!')).toBe('main');
    expect(normalizeAgentId('a_b-c')).toBe('a_b-c');
    expect(normalizeAgentId('_private')).toBe('_private');
  });

  it('agent ids: long ids are cut to 64 characters after slugging', () => {
    expect(normalizeAgentId('a'.repeat(64))).toBe('a'.repeat(64));
    expect(normalizeAgentId('A'.repeat(80))).toBe('a'.repeat(64));
    expect(normalizeAgentId(`${'b'.repeat(63)} tail`)).toBe(`${'b'.repeat(63)}-`);
  });

  it('account ids: empty, blank and missing become default', () => {
    expect(normalizeAccountId(undefined)).toBe('default');
    expect(normalizeAccountId(null)).toBe('default');
    expect(normalizeAccountId('')).toBe('default');
    expect(normalizeAccountId('   ')).toBe('default');
  });

  it('account ids: safe ids are lowercased; others become dash-joined slugs', () => {
    expect(normalizeAccountId(' biz ')).toBe('biz');
    expect(normalizeAccountId('BIZ')).toBe('biz');
    expect(normalizeAccountId('Bot Main')).toBe('bot-main');
    expect(normalizeAccountId(' Prod/US East ')).toBe('prod-us-east');
    expect(normalizeAccountId('--ops--')).toBe('ops');
  });

  it('account ids: a leading underscore is kept', () => {
    expect(normalizeAccountId('_prod_us')).toBe('_prod_us');
    expect(normalizeAccountId('_Prod')).toBe('_prod');
  });

  it('account ids: prototype keys and slugs that vanish become default', () => {
    expect(normalizeAccountId('__proto__')).toBe('default');
    expect(normalizeAccountId('__PROTO__')).toBe('default');
    expect(normalizeAccountId('constructor')).toBe('default');
    expect(normalizeAccountId('Prototype')).toBe('default');
    expect(normalizeAccountId('!!!')).toBe('default');
  });

  it('account ids: the memo stays correct past its 512-entry bound', () => {
    const results = Array.from({ length: 700 }, (_, index) => normalizeAccountId(`Account ${index}`));
    expect(results[0]).toBe('account-0');
    expect(results[699]).toBe('account-699');
    expect(normalizeAccountId('Account 0')).toBe('account-0');
    expect(normalizeAccountId('Account 699')).toBe('account-699');
  });

  it('main keys: trimmed and lowercased, main when empty', () => {
    expect(normalizeMainKey(' Work ')).toBe('work');
    expect(normalizeMainKey('')).toBe('main');
    expect(normalizeMainKey(undefined)).toBe('main');
  });

  it('peer kinds: dm is direct, case and whitespace ignored, unknown kinds rejected', () => {
    expect(normalizePeerKind('direct')).toBe('direct');
    expect(normalizePeerKind('dm')).toBe('direct');
    expect(normalizePeerKind(' DM ')).toBe('direct');
    expect(normalizePeerKind('Group')).toBe('group');
    expect(normalizePeerKind('CHANNEL')).toBe('channel');
    expect(normalizePeerKind('thread')).toBeUndefined();
    expect(normalizePeerKind('')).toBeUndefined();
    expect(normalizePeerKind(3)).toBeUndefined();
  });

  it('route ids: trimmed with case kept; numbers and bigints become strings', () => {
    expect(normalizeRouteId('  C1 ')).toBe('C1');
    expect(normalizeRouteId(123456789012345678n)).toBe('123456789012345678');
    expect(normalizeRouteId(42)).toBe('42');
    expect(normalizeRouteId(null)).toBe('');
    expect(normalizeRouteId({ id: 1 })).toBe('');
  });

  it('tokens: trimmed and lowercased; non-strings become empty', () => {
    expect(normalizeToken(' Discord ')).toBe('discord');
    expect(normalizeToken(undefined)).toBe('');
    expect(normalizeToken(7)).toBe('');
  });
});
