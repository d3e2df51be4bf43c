import type { LogFields, Logger, LogLevel } from '../src/index.ts';

interface LogLine {
  readonly level: LogLevel;
  readonly message: string;
  readonly fields: LogFields;
}

/** A logger that keeps every line, for assertions. */
export interface RecordingLogger extends Logger {
  readonly lines: LogLine[];
  /** Lines of one level. */
  at(level: LogLevel): LogLine[];
}

export function createRecordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  const write =
    (level: LogLevel) =>
    (message: string, fields: LogFields = {}): void => {
      lines.push({ level, message, fields });
    };
  return {
    lines,
    at: (level) => lines.filter((line) => line.level === level),
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
  };
}
