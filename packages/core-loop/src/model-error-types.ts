import type { AssistantMessage } from '@switchboard/hooks';

// Derived from the message model so they stay identical to the fields they describe
// (`@switchboard/hooks` declares them as `ModelErrorClass` and `ModelErrorDetails`).

/** Why a model call failed, normalized across providers. */
export type ModelErrorClass = NonNullable<AssistantMessage['errorClass']>;

/** Facts about a failed model call: status, retry-after, observed prompt tokens. */
export type ModelErrorDetails = NonNullable<AssistantMessage['errorDetails']>;
