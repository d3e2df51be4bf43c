// The parts of `models` the extra model providers add (issue 20, decision 0014): the compat
// flags of an OpenAI-compatible server, per provider or per model (OpenClaw's shape), and
// `models.mode`. Validated here so a typo is a config error with its key path, not a
// surprise at the first turn.
import { z } from 'zod';

/** `models.providers.<id>.compat` and `models.providers.<id>.models[].compat`. */
export const providerCompatSchema = z.strictObject({
  supportsTools: z.boolean().optional(),
  supportsUsageInStreaming: z.boolean().optional(),
  supportsDeveloperRole: z.boolean().optional(),
  supportsReasoningEffort: z.boolean().optional(),
  maxTokensField: z.enum(['max_completion_tokens', 'max_tokens']).optional(),
  requiresToolResultName: z.boolean().optional(),
  requiresStringContent: z.boolean().optional(),
  toolSchemaProfile: z
    .enum(['full', 'llama-cpp', 'minimal'])
    .optional()
    .describe(
      'How tool JSON Schemas are cleaned: full (as written), llama-cpp (no pattern, format or string lengths), minimal (type, properties, required, items, enum, description)',
    ),
});

/**
 * `models.mode`: `merge` (default) adds the implicit providers (anthropic, openai from
 * OPENAI_API_KEY, ollama on 127.0.0.1 or OLLAMA_HOST) next to the configured ones; `replace`
 * uses only `models.providers`.
 */
export const modelsModeSchema = z.enum(['merge', 'replace']).default('merge');

/** The wire APIs the provider packages serve. */
export const extraModelApis = ['openai-completions', 'openai-responses', 'ollama'] as const;
