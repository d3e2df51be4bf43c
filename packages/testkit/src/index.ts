// @switchboard/testkit: dev-only fakes for tests and benches. Each fake lives on its own
// subpath (`@switchboard/testkit/anthropic`, …); the root holds only what they share.

export { TestkitError, type TestkitErrorCode, testkitErrorCodes } from './shared/errors.ts';
