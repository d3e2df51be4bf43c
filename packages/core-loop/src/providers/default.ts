import type { StreamFunction } from '../types.ts';
import { createStreamFunction } from './provider.ts';

let loaded: Promise<StreamFunction> | undefined;

/**
 * The stream function an `Agent` uses when none is given: the Anthropic provider with its
 * defaults (credentials come from `getApiKey` or per-call options). The SDK is loaded on
 * the first call, so importing this package stays light.
 */
export const defaultStreamFunction: StreamFunction = async (model, context, options) => {
  loaded ??= import('./anthropic.ts').then((module) =>
    createStreamFunction([module.createAnthropicProvider()]),
  );
  const streamFn = await loaded;
  return streamFn(model, context, options);
};
