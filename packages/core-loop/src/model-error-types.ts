// The model error vocabulary is the message model's (`@switchboard/hooks`): one declaration,
// re-exported here for core-loop's own modules and callers.
export type { ModelErrorClass, ModelErrorDetails } from '@switchboard/hooks';
