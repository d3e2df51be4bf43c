// Injected faults of the fake Telegram: which calls a rule matches, and the answer it gives.
import { TestkitError } from '../shared/errors.ts';
import { ApiFailure } from './api-values.ts';
import type { RecordedTelegramRequest, TelegramFault, TelegramFaultOptions } from './fake-telegram-types.ts';

/** An injected fault with its live counters. */
export interface MutableRule {
  readonly fault: TelegramFault;
  readonly methods: ReadonlySet<string> | undefined;
  readonly match: ((request: RecordedTelegramRequest) => boolean) | undefined;
  hits: number;
  remaining: number;
}

const validTypes: readonly TelegramFault['type'][] = [
  'rate_limit',
  'conflict',
  'unauthorized',
  'forbidden',
  'bad_request',
  'server',
  'network',
  'hang',
];

/** Checks `injectFault`'s arguments and builds the rule; throws TESTKIT_INVALID_OPTIONS naming what is wrong. */
export function createFaultRule(fault: TelegramFault, options: TelegramFaultOptions): MutableRule {
  const times = options.times ?? 1;
  if (!(times === Number.POSITIVE_INFINITY || (Number.isInteger(times) && times >= 1))) {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      'injectFault options.times must be an integer >= 1 or Infinity',
      {
        details: { path: 'times' },
      },
    );
  }
  if (typeof fault !== 'object' || fault === null || !validTypes.includes(fault.type)) {
    throw new TestkitError(
      'TESTKIT_INVALID_OPTIONS',
      `injectFault: fault.type must be one of ${validTypes.join(', ')}`,
      { details: { path: 'fault.type' } },
    );
  }
  const methods =
    options.method === undefined
      ? undefined
      : new Set(typeof options.method === 'string' ? [options.method] : options.method);
  return { fault, methods, match: options.match, hits: 0, remaining: times };
}

/** The fault of the first rule matching `request`, counted (a spent rule is removed); undefined when none. */
export function takeFault(rules: MutableRule[], request: RecordedTelegramRequest): TelegramFault | undefined {
  const rule = rules.find(
    (candidate) =>
      candidate.remaining > 0 &&
      (candidate.methods === undefined || candidate.methods.has(request.method)) &&
      (candidate.match === undefined || candidate.match(request)),
  );
  if (rule === undefined) return undefined;
  rule.hits += 1;
  rule.remaining -= 1;
  if (rule.remaining <= 0) rules.splice(rules.indexOf(rule), 1);
  return rule.fault;
}

/** The error answer of a fault that answers (every type but `network` and `hang`). */
export function faultFailure(fault: Exclude<TelegramFault, { type: 'network' | 'hang' }>): ApiFailure {
  switch (fault.type) {
    case 'rate_limit': {
      const retryAfter = fault.retryAfterSeconds ?? 1;
      return new ApiFailure(429, `Too Many Requests: retry after ${retryAfter}`, { retry_after: retryAfter });
    }
    case 'conflict':
      return new ApiFailure(
        409,
        fault.description ??
          'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      );
    case 'unauthorized':
      return new ApiFailure(401, 'Unauthorized');
    case 'forbidden':
      return new ApiFailure(403, fault.description ?? 'Forbidden: bot was blocked by the user');
    case 'bad_request':
      return new ApiFailure(400, fault.description);
    case 'server':
      return new ApiFailure(fault.status ?? 500, fault.description ?? 'Internal Server Error');
  }
}
