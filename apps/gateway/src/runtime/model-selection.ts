import type { ThinkingLevel } from '@switchboard/core-loop';
import type { AgentConfig, GatewayConfig } from '../config/schema.ts';
import { defaultModelReference } from './models.ts';

/**
 * The one place that decides which model and thinking level a turn of an agent uses: the
 * runner, `/status`, `/model` and `doctor.check` all ask here, so they can never disagree.
 */

/** What a session may override (the fields of `SessionEntry` that matter here). */
export interface SessionModelOverrides {
  readonly modelOverride?: string | undefined;
  readonly providerOverride?: string | undefined;
  readonly thinkingLevel?: string | undefined;
}

/** The `agents.list` entry of an agent (ids compare case-insensitively), if it has one. */
export function agentConfigOf(config: GatewayConfig, agentId: string): AgentConfig | undefined {
  const id = agentId.toLowerCase();
  return config.agents.list?.find((agent) => agent.id.toLowerCase() === id);
}

/** The model choice (primary and fallbacks) of an agent: its own, else `agents.defaults.model`. */
export function modelChoiceOf(config: GatewayConfig, agentId: string): AgentConfig['model'] {
  return agentConfigOf(config, agentId)?.model ?? config.agents.defaults.model;
}

/** The model of an agent without a model of its own: `agents.defaults.model`, else the default. */
export function defaultsModelReference(config: GatewayConfig): string {
  return config.agents.defaults.model?.primary ?? defaultModelReference;
}

/** The configured model of an agent, before any session override. */
export function agentModelReference(config: GatewayConfig, agentId: string): string {
  return agentConfigOf(config, agentId)?.model?.primary ?? defaultsModelReference(config);
}

/**
 * The model reference a turn of `agentId` in a session with these overrides uses: the
 * session's `modelOverride` (with its `providerOverride`, else `anthropic`, when it names no
 * provider), else the agent's model, else `agents.defaults.model`, else the default.
 */
export function resolveModelReference(
  config: GatewayConfig,
  agentId: string,
  session: SessionModelOverrides | undefined,
): string {
  const override = session?.modelOverride;
  if (override !== undefined) {
    return override.includes('/') ? override : `${session?.providerOverride ?? 'anthropic'}/${override}`;
  }
  return agentModelReference(config, agentId);
}

/**
 * The thinking level of a turn: the turn's own (`thinking` of an `agent` request), else the
 * session's (`/think`), else the agent's, else `agents.defaults.thinking`, else `off`.
 */
export function resolveThinkingLevel(
  config: GatewayConfig,
  agentId: string,
  session: SessionModelOverrides | undefined,
  turnThinking?: ThinkingLevel,
): ThinkingLevel {
  return (
    turnThinking ??
    (session?.thinkingLevel as ThinkingLevel | undefined) ??
    agentConfigOf(config, agentId)?.thinking ??
    config.agents.defaults.thinking ??
    'off'
  );
}

/** A model named by a user (`/model sonnet-x`): without a provider, it is an `anthropic` one. */
export function normalizeModelReference(reference: string): string {
  return reference.includes('/') ? reference : `anthropic/${reference}`;
}
