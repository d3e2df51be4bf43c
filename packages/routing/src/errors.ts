import { type ErrorCodeTable, SwitchboardError, type SwitchboardErrorOptions } from '@switchboard/hooks';

/** The codes of every `RoutingError`. */
export type RoutingErrorCode = 'ROUTING_INVALID_CONFIG' | 'ROUTING_UNKNOWN_AGENT' | 'ROUTING_DUPLICATE_AGENT';

/** Every error code this package throws, with the sentence that documents it. */
export const routingErrorCodes: Readonly<Record<RoutingErrorCode, string>> & ErrorCodeTable = {
  ROUTING_INVALID_CONFIG:
    'The routing part of the config (agents.list, bindings, session) does not have the expected shape; the message names each key path and what was expected there.',
  ROUTING_UNKNOWN_AGENT:
    'A binding names an agentId that matches no entry of agents.list after normalization; the message names the binding index (bindings[N].agentId) and the listed agents.',
  ROUTING_DUPLICATE_AGENT:
    'Two agents.list entries normalize to the same agent id, so bindings and sessions could not tell them apart; the message names both indexes.',
};

/** One problem found in a config, with the key path it was found at (`bindings[3].agentId`). */
export interface RoutingConfigProblem {
  readonly path: string;
  readonly message: string;
}

/** The error every routing failure is thrown as. `details.problems` lists each problem found. */
export class RoutingError extends SwitchboardError<RoutingErrorCode> {
  readonly problems: readonly RoutingConfigProblem[];

  constructor(
    code: RoutingErrorCode,
    message: string,
    problems: readonly RoutingConfigProblem[] = [],
    options: SwitchboardErrorOptions = {},
  ) {
    super(code, message, { ...options, details: { ...options.details, problems } });
    this.problems = problems;
  }
}
