// OpenClaw's `session` and `messages.queue`: DM scope (OpenClaw's default written out, so
// imported DM conversations keep their keys), reset policy, maintenance, the queue.
import { isRecord } from '../openclaw-source.ts';
import { copyIfPresent } from './key-notes.ts';
import type { Mark } from './types.ts';

/** Converts `session` into `config.session`. */
export function convertSession(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
): void {
  const session = isRecord(raw.session) ? raw.session : {};
  const target: Record<string, unknown> = {};
  if (typeof session.dmScope === 'string') {
    target.dmScope = session.dmScope;
    mark('session.dmScope', { disposition: 'mapped', target: 'session.dmScope' });
  } else {
    // Switchboard's default is per-channel-peer; OpenClaw's is main. Writing OpenClaw's
    // default keeps every imported DM conversation under the key it had.
    target.dmScope = 'main';
  }
  copyIfPresent(
    session,
    target,
    ['mainKey', 'identityLinks', 'scope', 'resetByChannel', 'resetTriggers'],
    'session',
    'session',
    mark,
  );
  if (isRecord(session.reset)) {
    const reset: Record<string, unknown> = {};
    copyIfPresent(
      session.reset,
      reset,
      ['mode', 'atHour', 'idleMinutes'],
      'session.reset',
      'session.reset',
      mark,
    );
    target.reset = reset;
  } else if (typeof session.idleMinutes === 'number') {
    target.reset = { mode: 'idle', idleMinutes: session.idleMinutes };
    mark('session.idleMinutes', {
      disposition: 'changed',
      target: 'session.reset',
      message: 'the legacy key becomes reset.mode "idle" with reset.idleMinutes',
    });
  }
  if (isRecord(session.resetByType)) {
    const byType: Record<string, unknown> = {};
    for (const [kind, value] of Object.entries(session.resetByType)) {
      const targetKind = kind === 'dm' ? 'direct' : kind;
      if (!['direct', 'group', 'thread'].includes(targetKind)) continue;
      byType[targetKind] = value;
      mark(`session.resetByType.${kind}`, {
        disposition: kind === 'dm' ? 'changed' : 'mapped',
        target: `session.resetByType.${targetKind}`,
        ...(kind === 'dm' ? { message: 'the legacy "dm" is "direct"' } : {}),
      });
    }
    target.resetByType = byType;
  }
  if (isRecord(session.maintenance)) {
    const maintenance: Record<string, unknown> = {};
    const pruneAfter = session.maintenance.pruneAfter;
    const days =
      typeof pruneAfter === 'string' ? /^(\d+(?:\.\d+)?)d$/.exec(pruneAfter.trim())?.[1] : undefined;
    if (days !== undefined) {
      maintenance.pruneAfterDays = Number(days);
      mark('session.maintenance.pruneAfter', {
        disposition: 'changed',
        target: 'session.maintenance.pruneAfterDays',
        message: 'a number of days instead of a duration string',
      });
    }
    copyIfPresent(
      session.maintenance,
      maintenance,
      ['maxEntries'],
      'session.maintenance',
      'session.maintenance',
      mark,
    );
    target.maintenance = maintenance;
  }
  if (session.store !== undefined)
    mark('session.store', {
      disposition: 'unsupported',
      message:
        "sessions are imported into Switchboard's database (switchboard.db in the state directory); the path is not used",
    });
  config.session = target;
}

/** Converts `messages.queue` into `config.messages.queue`. */
export function convertMessages(
  raw: Record<string, unknown>,
  config: Record<string, unknown>,
  mark: Mark,
): void {
  const messages = raw.messages;
  if (!isRecord(messages) || !isRecord(messages.queue)) return;
  const queue: Record<string, unknown> = {};
  copyIfPresent(
    messages.queue,
    queue,
    ['mode', 'debounceMs', 'cap', 'drop', 'byChannel'],
    'messages.queue',
    'messages.queue',
    mark,
  );
  config.messages = { queue };
}
