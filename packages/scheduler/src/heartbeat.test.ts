import { describe, expect, it } from 'vitest';
import {
  decideHeartbeat,
  filterHeartbeatReply,
  isHeartbeatFileEmpty,
  isWithinActiveHours,
  validateActiveHours,
} from './heartbeat.ts';

const noon = Date.parse('2026-06-01T12:00:00Z');

describe('the heartbeat decision', () => {
  it('skips when HEARTBEAT.md is missing, blank or only scaffolding', () => {
    expect(isHeartbeatFileEmpty(undefined)).toBe(true);
    expect(isHeartbeatFileEmpty('  \n\n')).toBe(true);
    expect(isHeartbeatFileEmpty('# Heartbeat\n\n<!-- add tasks below -->\n- \n- [ ]\n')).toBe(true);
    expect(isHeartbeatFileEmpty('# Heartbeat\n- check the build status\n')).toBe(false);
    expect(decideHeartbeat({ nowMs: noon, fileContent: '# Tasks\n', busy: false })).toEqual({
      run: false,
      reason: 'empty',
      detail: 'HEARTBEAT.md has no tasks',
    });
    expect(decideHeartbeat({ nowMs: noon, fileContent: undefined, busy: false })).toMatchObject({
      reason: 'empty',
      detail: 'HEARTBEAT.md is missing',
    });
  });

  it('skips outside active hours, in the configured time zone, with wrapping windows', () => {
    const office = { start: '08:00', end: '18:00', timezone: 'Asia/Tokyo' };
    // 12:00 UTC is 21:00 in Tokyo.
    expect(isWithinActiveHours(noon, office)).toBe(false);
    expect(isWithinActiveHours(noon, { ...office, timezone: 'Europe/London' })).toBe(true);
    const night = { start: '22:00', end: '06:00', timezone: 'UTC' };
    expect(isWithinActiveHours(Date.parse('2026-06-01T23:30:00Z'), night)).toBe(true);
    expect(isWithinActiveHours(Date.parse('2026-06-01T05:59:00Z'), night)).toBe(true);
    expect(isWithinActiveHours(Date.parse('2026-06-01T06:00:00Z'), night)).toBe(false);
    expect(
      decideHeartbeat({ nowMs: noon, fileContent: '- task', busy: false, activeHours: office }),
    ).toMatchObject({
      run: false,
      reason: 'outside_active_hours',
      detail: 'outside active hours 08:00–18:00 Asia/Tokyo',
    });
  });

  it('defers while the main session is busy, and runs otherwise', () => {
    expect(decideHeartbeat({ nowMs: noon, fileContent: '- task', busy: true })).toMatchObject({
      run: false,
      reason: 'busy',
    });
    expect(decideHeartbeat({ nowMs: noon, fileContent: '- task', busy: false })).toEqual({ run: true });
  });

  it('refuses malformed active hours by name', () => {
    expect(() => validateActiveHours({ start: '8am', end: '18:00' })).toThrow('activeHours.start: "8am"');
    expect(() => validateActiveHours({ start: '08:00', end: '18:00', timezone: 'Nowhere/City' })).toThrow(
      'activeHours.timezone: "Nowhere/City"',
    );
  });
});

describe('filterHeartbeatReply', () => {
  it.each([
    ['HEARTBEAT_OK'],
    ['NO_REPLY'],
    ['  **HEARTBEAT_OK**  '],
    ['All quiet. HEARTBEAT_OK'],
    ['HEARTBEAT_OK — nothing needs attention today.'],
  ])('drops %j', (reply) => {
    expect(filterHeartbeatReply(reply)).toEqual({ drop: true });
  });

  it('keeps a real message, with the token removed when it is long', () => {
    expect(filterHeartbeatReply('The build is red since 10:00.')).toEqual({
      drop: false,
      text: 'The build is red since 10:00.',
    });
    const long = `HEARTBEAT_OK ${'x'.repeat(301)}`;
    expect(filterHeartbeatReply(long)).toEqual({ drop: false, text: 'x'.repeat(301) });
  });
});
