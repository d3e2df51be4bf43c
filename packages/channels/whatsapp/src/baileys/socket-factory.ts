// Which socket factory an account uses.
//
// 1. `createWhatsAppChannel({ makeSocket })`: the factory you pass (tests in one process).
// 2. Otherwise Baileys' `makeWASocket`, except when a test runs the gateway as a child
//    process: it cannot hand the child a function, so it names a module instead, with two
//    locks that production never has open together:
//      SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY=/abs/path/to/module.ts   (exports makeSocket)
//      NODE_ENV=test
//    The variable without NODE_ENV=test fails the account's start (not retried) instead of
//    being ignored, so a stray variable is noticed rather than silently half-applied.
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from '@switchboard/hooks';
import { makeWASocket } from 'baileys';
import { WhatsAppError } from '../errors.ts';
import type { MakeWhatsAppSocket } from './socket.ts';

/** The environment variable naming a test-only socket factory module. */
export const testSocketFactoryVariable = 'SWITCHBOARD_WHATSAPP_TEST_SOCKET_FACTORY';

/** The factory to use, and a note for the status line when it is not Baileys' own. */
export interface ResolvedSocketFactory {
  readonly makeSocket: MakeWhatsAppSocket;
  readonly testModule?: string;
}

export async function resolveSocketFactory(
  explicit: MakeWhatsAppSocket | undefined,
  environment: Readonly<Record<string, string | undefined>>,
  logger: Logger,
): Promise<ResolvedSocketFactory> {
  if (explicit !== undefined) return { makeSocket: explicit };
  const modulePath = environment[testSocketFactoryVariable]?.trim();
  if (modulePath === undefined || modulePath === '')
    return { makeSocket: makeWASocket as MakeWhatsAppSocket };
  if (environment.NODE_ENV !== 'test') {
    throw new WhatsAppError(
      'WHATSAPP_TEST_FACTORY_REFUSED',
      `${testSocketFactoryVariable} is set (${modulePath}) but NODE_ENV is "${environment.NODE_ENV ?? ''}", not "test": ` +
        'refusing to replace the WhatsApp connection with a test socket; unset the variable',
      { retryable: false },
    );
  }
  if (!isAbsolute(modulePath) && !modulePath.startsWith('file:')) {
    throw new WhatsAppError(
      'WHATSAPP_TEST_FACTORY_INVALID',
      `${testSocketFactoryVariable} must be an absolute path or a file: URL, got "${modulePath}"`,
      { retryable: false },
    );
  }
  let loaded: { makeSocket?: unknown };
  try {
    const url = modulePath.startsWith('file:') ? modulePath : pathToFileURL(modulePath).href;
    loaded = (await import(url)) as { makeSocket?: unknown };
  } catch (error) {
    throw new WhatsAppError(
      'WHATSAPP_TEST_FACTORY_INVALID',
      `${testSocketFactoryVariable}: could not import ${modulePath}: ${(error as Error).message}`,
      { retryable: false, cause: error },
    );
  }
  if (typeof loaded.makeSocket !== 'function') {
    throw new WhatsAppError(
      'WHATSAPP_TEST_FACTORY_INVALID',
      `${testSocketFactoryVariable}: ${modulePath} does not export a makeSocket function`,
      { retryable: false },
    );
  }
  logger.warn('WhatsApp uses a TEST socket factory instead of WhatsApp Web (tests only)', {
    module: modulePath,
  });
  return { makeSocket: loaded.makeSocket as MakeWhatsAppSocket, testModule: modulePath };
}
