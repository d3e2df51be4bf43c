// Compatibility flags (OpenClaw's `compat` shape): what a Chat Completions server accepts, so a
// quirky server is configured, not patched. Defaults depend on the endpoint: OpenAI's own API
// gets its modern fields, any other server the most widely accepted ones.
import type { Model } from '@switchboard/core-loop';
import { ProviderOpenAIError } from './errors.ts';

/** How tool JSON Schemas are cleaned before they are sent. */
export type ToolSchemaProfile = 'full' | 'llama-cpp' | 'minimal';

/** The tool schema profiles, for config validation. */
export const toolSchemaProfiles: readonly ToolSchemaProfile[] = ['full', 'llama-cpp', 'minimal'];

/** What a server accepts. Every flag has a default (see `resolveCompat`). */
export interface OpenAICompat {
  /** Send `tools`; false sends none (the model answers in text only). */
  readonly supportsTools: boolean;
  /** Send `stream_options: { include_usage: true }` (usage arrives in the last chunk). */
  readonly supportsUsageInStreaming: boolean;
  /** Send the system prompt with role `developer` instead of `system`. */
  readonly supportsDeveloperRole: boolean;
  /** Send `reasoning_effort` from the thinking level (models that think). */
  readonly supportsReasoningEffort: boolean;
  /** Which field carries the output limit. */
  readonly maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Tool result messages carry the tool's `name` (some Mistral-style servers need it). */
  readonly requiresToolResultName: boolean;
  /** Message `content` must be a plain string, never an array of parts (images become a note). */
  readonly requiresStringContent: boolean;
  readonly toolSchemaProfile: ToolSchemaProfile;
}

/** Compat flags as configured: any subset. */
export type OpenAICompatSettings = Partial<OpenAICompat>;

/** A model with its compat flags (what `createOpenAIModel` returns). */
export interface OpenAIModel extends Model {
  readonly compat?: OpenAICompatSettings;
}

/** The endpoint of OpenAI's own API, used when neither call, model nor provider names one. */
export const openAIDefaultBaseUrl = 'https://api.openai.com/v1';

/** True for OpenAI's own endpoint (where the modern request fields are known to work). */
function isOpenAIEndpoint(baseUrl: string): boolean {
  return /^https:\/\/api\.openai\.com(?:\/|$)/i.test(baseUrl);
}

/** True when the endpoint is on this machine (a local server that needs no key). */
export function isLoopbackEndpoint(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

const compatKeys = new Set<string>([
  'supportsTools',
  'supportsUsageInStreaming',
  'supportsDeveloperRole',
  'supportsReasoningEffort',
  'maxTokensField',
  'requiresToolResultName',
  'requiresStringContent',
  'toolSchemaProfile',
]);

/** Checks configured compat flags; throws naming the first bad key. */
export function validateCompat(value: unknown, path = 'compat'): OpenAICompatSettings {
  const fail = (what: string): never => {
    throw new ProviderOpenAIError('PROVIDER_OPENAI_INVALID_MODEL', `${path}${what}`, { details: { path } });
  };
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail(' must be an object');
  for (const [key, flag] of Object.entries(value)) {
    if (!compatKeys.has(key)) fail(`.${key} is not a compat flag; known: ${[...compatKeys].join(', ')}`);
    if (key === 'maxTokensField') {
      if (flag !== 'max_completion_tokens' && flag !== 'max_tokens')
        fail('.maxTokensField must be "max_completion_tokens" or "max_tokens"');
    } else if (key === 'toolSchemaProfile') {
      if (!toolSchemaProfiles.includes(flag as ToolSchemaProfile))
        fail(`.toolSchemaProfile must be one of ${toolSchemaProfiles.join(', ')}`);
    } else if (typeof flag !== 'boolean') fail(`.${key} must be true or false`);
  }
  return value as OpenAICompatSettings;
}

/** The flags in force for one call: configured values over the endpoint's defaults. */
export function resolveCompat(model: Model, baseUrl: string): OpenAICompat {
  const configured = (model as OpenAIModel).compat ?? {};
  const official = isOpenAIEndpoint(baseUrl);
  return {
    supportsTools: configured.supportsTools ?? true,
    supportsUsageInStreaming: configured.supportsUsageInStreaming ?? true,
    supportsDeveloperRole: configured.supportsDeveloperRole ?? (official && model.thinking !== undefined),
    supportsReasoningEffort: configured.supportsReasoningEffort ?? (official && model.thinking !== undefined),
    maxTokensField: configured.maxTokensField ?? (official ? 'max_completion_tokens' : 'max_tokens'),
    requiresToolResultName: configured.requiresToolResultName ?? false,
    requiresStringContent: configured.requiresStringContent ?? false,
    toolSchemaProfile: configured.toolSchemaProfile ?? 'full',
  };
}
