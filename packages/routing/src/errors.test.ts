import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '@switchboard/hooks';
import { describe, expect, it } from 'vitest';
import { routingConfigWarningCodes } from './config.ts';
import { RoutingError, routingErrorCodes } from './errors.ts';

function sourceFiles(): string[] {
  const directory = import.meta.dirname;
  return readdirSync(directory)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => readFileSync(join(directory, name), 'utf8'));
}

describe('RoutingError', () => {
  it('is a SwitchboardError with a code, the problems and their key paths', () => {
    const problems = [{ path: 'bindings[3].agentId', message: 'expected one of the agents in agents.list' }];
    const error = new RoutingError('ROUTING_UNKNOWN_AGENT', 'bindings[3].agentId: wrong', problems);
    expect(error).toBeInstanceOf(SwitchboardError);
    expect(SwitchboardError.isInstance(error)).toBe(true);
    expect(error.name).toBe('RoutingError');
    expect(error.code).toBe('ROUTING_UNKNOWN_AGENT');
    expect(error.problems).toEqual(problems);
    expect(error.toJSON()).toEqual({
      name: 'RoutingError',
      code: 'ROUTING_UNKNOWN_AGENT',
      message: 'bindings[3].agentId: wrong',
      retryable: false,
      details: { problems },
    });
  });

  it('documents every error code the source uses, and uses every documented code', () => {
    const used = new Set<string>();
    for (const source of sourceFiles()) {
      // Codes at the places errors are thrown and warnings pushed.
      for (const match of source.matchAll(/(?:failure\(|RoutingError\(|code: )'(ROUTING_[A-Z_]+)'/g)) {
        used.add(match[1] as string);
      }
    }
    const documented = new Set([
      ...Object.keys(routingErrorCodes),
      ...Object.keys(routingConfigWarningCodes),
    ]);
    expect([...used].filter((code) => !documented.has(code))).toEqual([]);
    expect([...documented].filter((code) => !used.has(code))).toEqual([]);
    for (const sentence of [
      ...Object.values(routingErrorCodes),
      ...Object.values(routingConfigWarningCodes),
    ]) {
      expect(sentence.length).toBeGreaterThan(30);
    }
  });
});
