// The prompt seam (decision 0013): the system prompt is the ordered join of registered
// sections (identity, date, channel, tools, reply rules, later skills and memory recall,
// bootstrap files), so a feature adds a section without touching the run.
import type { GatewayConfig } from '../config/schema.ts';

/** What a section may read to render itself for one turn. */
export interface PromptSectionContext {
  readonly config: GatewayConfig;
  readonly agentId: string;
  readonly agentName?: string;
  readonly sessionKey: string;
  /** The session's current id: a new one after a reset, so a per-session snapshot keys on it. */
  readonly sessionId: string;
  readonly workspaceDir: string;
  /** The tools this turn offers, after the agent's policy. */
  readonly tools: ReadonlyArray<{ readonly name: string; readonly description: string }>;
  /** Present for a turn that came from a channel. */
  readonly channel?: { readonly name: string; readonly chatType: 'direct' | 'group' | 'channel' };
  /** The calendar date in the gateway's time zone (not the time of day). */
  readonly date: string;
  readonly timeZone: string;
}

/**
 * One part of the system prompt. Contract: `render` returns the same text for the same
 * inputs — no clock times, counters, random or map-iteration order — so the prompt stays
 * byte-identical between turns of a session and the provider's prompt cache hits; it returns
 * undefined (or an empty string) to leave the section out; it may read files but should
 * cache them. A throw leaves the section out and is logged; it never fails the turn.
 *
 * `order` places it: identity 100, date 200, channel 300, tools 400, reply rules 500,
 * skills 600, memory recall 700, bootstrap files 900.
 */
export interface PromptSection {
  readonly id: string;
  readonly order: number;
  render(context: PromptSectionContext): string | undefined | Promise<string | undefined>;
}

export interface PromptSectionRegistry {
  /** Adds a section (ids are unique); returns the function that removes it. */
  register(section: PromptSection): () => void;
  /** The system prompt for one turn: rendered sections by `order` (then registration), joined by blank lines. */
  assemble(
    context: PromptSectionContext,
    onError?: (section: string, error: unknown) => void,
  ): Promise<string>;
  /** Section ids in prompt order. */
  ids(): readonly string[];
}

export function createPromptSectionRegistry(): PromptSectionRegistry {
  let sections: PromptSection[] = [];
  const sort = () => {
    // Array.prototype.sort is stable: equal orders keep registration order.
    sections = [...sections].sort((left, right) => left.order - right.order);
  };
  return {
    register(section) {
      if (sections.some((existing) => existing.id === section.id)) {
        throw new Error(`prompt section "${section.id}" is already registered`);
      }
      sections.push(section);
      sort();
      return () => {
        sections = sections.filter((existing) => existing !== section);
      };
    },
    async assemble(context, onError) {
      const rendered = await Promise.all(
        sections.map(async (section) => {
          try {
            return await section.render(context);
          } catch (error) {
            onError?.(section.id, error);
            return undefined;
          }
        }),
      );
      return rendered.filter((text): text is string => text !== undefined && text !== '').join('\n\n');
    },
    ids: () => sections.map((section) => section.id),
  };
}
