import { describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../test/recording-logger.ts';
import { createConsoleLogger, noopLogger, withLogFields } from './logger.ts';

describe('loggers', () => {
  it('the console logger filters by level and appends fields as JSON', () => {
    const written: string[] = [];
    const sink = {
      debug: (line: string) => written.push(line),
      info: (line: string) => written.push(line),
      warn: (line: string) => written.push(line),
      error: (line: string) => written.push(line),
    };
    const logger = createConsoleLogger({ level: 'warn', console: sink, fields: { component: 'plugins' } });
    logger.info('dropped');
    logger.warn('slow handler', { plugin: 'p', timeoutMs: 5 });
    logger.error('failed', { error: Object.assign(new Error('boom'), { code: 'X' }), big: 10n });
    expect(written).toEqual([
      '[warn] slow handler {"component":"plugins","plugin":"p","timeoutMs":5}',
      '[error] failed {"component":"plugins","error":{"name":"Error","message":"boom","code":"X"},"big":"10"}',
    ]);
  });

  it('withLogFields adds fields without losing the caller fields', () => {
    const target = createRecordingLogger();
    withLogFields(target, { plugin: 'weather' }).warn('x', { hook: 'agent_end' });
    withLogFields(target, { plugin: 'weather' }).debug('y');
    expect(target.lines).toEqual([
      { level: 'warn', message: 'x', fields: { plugin: 'weather', hook: 'agent_end' } },
      { level: 'debug', message: 'y', fields: { plugin: 'weather' } },
    ]);
  });

  it('the no-op logger accepts everything', () => {
    expect(() => noopLogger.error('nothing', { a: 1 })).not.toThrow();
  });
});
