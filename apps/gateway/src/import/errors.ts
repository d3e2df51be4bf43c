import { type ErrorCodeTable, SwitchboardError } from '@switchboard/hooks';

/** The codes of `switchboard import openclaw` (documented; a test checks every code has a text). */
export const importErrorCodes = {
  IMPORT_SOURCE_NOT_FOUND:
    'The OpenClaw state directory (--from, default ~/.openclaw) does not exist or holds neither openclaw.json nor agent state.',
  IMPORT_SOURCE_UNREADABLE:
    'A file of the OpenClaw state directory cannot be read or parsed; the message names the file.',
  IMPORT_TARGET_HAS_CONFIG:
    'The Switchboard state directory already has a switchboard.json that this import did not write; pass --force to replace it (the old file is kept beside it).',
  IMPORT_INVALID_ONLY: '--only names a part that does not exist; the message lists the parts.',
  IMPORT_TARGET_LOCKED:
    'The Switchboard state directory is in use by a running gateway; stop it before importing.',
} as const satisfies ErrorCodeTable;

type ImportErrorCode = keyof typeof importErrorCodes;

export class ImportError extends SwitchboardError<ImportErrorCode> {
  constructor(code: ImportErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'ImportError';
  }
}
