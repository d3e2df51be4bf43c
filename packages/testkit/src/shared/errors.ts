import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** The codes of {@link TestkitError}. */
export type TestkitErrorCode =
  | 'TESTKIT_INVALID_OPTIONS'
  | 'TESTKIT_INVALID_TURN'
  | 'TESTKIT_SCRIPT_FAILED'
  | 'TESTKIT_SCRIPT_EXHAUSTED'
  | 'TESTKIT_NOT_STARTED'
  | 'TESTKIT_CLOSED'
  | 'TESTKIT_WAIT_TIMEOUT';

/**
 * Every code a testkit fake throws or reports, with the sentence that documents it.
 * A test checks that each code the package uses appears here.
 */
export const testkitErrorCodes: Readonly<Record<TestkitErrorCode, string>> = {
  TESTKIT_INVALID_OPTIONS:
    'An option passed to a fake is invalid; the message names the option path and what was expected.',
  TESTKIT_INVALID_TURN:
    'A scripted turn (or a fault inside it) is malformed; the message names the field path and what was expected.',
  TESTKIT_SCRIPT_FAILED:
    'A turn function threw, or returned something that is not a valid turn, while answering a request; the fake answered that request with HTTP 500.',
  TESTKIT_SCRIPT_EXHAUSTED:
    'A request arrived with no scripted turn left and the fallback is "fail"; the fake answered it with HTTP 500.',
  TESTKIT_NOT_STARTED: 'The fake was used (baseURL read, request awaited) before start() resolved.',
  TESTKIT_CLOSED: 'The fake was closed: start() after close(), or a pending wait was cut short by close().',
  TESTKIT_WAIT_TIMEOUT:
    'A wait on a fake (nextRequest, waitForRequests, waitForMessages, waitFor…) timed out; the message says what was awaited and what had arrived.',
} satisfies ErrorCodeTable;

/** The error every testkit fake throws or records. */
export class TestkitError extends SwitchboardError<TestkitErrorCode> {
  constructor(code: TestkitErrorCode, message: string, options: SwitchboardErrorOptions = {}) {
    super(code, message, options);
  }
}
