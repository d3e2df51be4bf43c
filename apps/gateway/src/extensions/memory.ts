// Long-term memory (@switchboard/memory, decision 0018): the memory_search and memory_get tools
// (tool source `memory`), the "memory recall" prompt section (order 700) with MEMORY.md within
// a budget, and one index per agent in `<state>/memory/<agent>.sqlite`, never in the
// workspace. Nothing opens at start-up: an agent's index opens (and syncs what changed) on its
// first memory tool call, then a file watcher keeps it current. The parsers, SQLite and the
// embeddings SDKs load only then; the package's own code with the first turn.
import { join } from 'node:path';
import type { Logger } from '@switchboard/hooks';
import type {
  EmbeddingsProvider,
  MemoryIndex,
  MemorySearchResponse,
  MemoryStatus,
  SearchSettings,
  SyncReport,
} from '@switchboard/memory';
import type { SessionStore } from '@switchboard/sessions';
import type { GatewayConfig } from '../config/schema.ts';
import type { MemorySearchConfig } from '../config/schema-memory.ts';
import type { GatewayExtension } from './extension.ts';
import { createSessionSnapshots } from './session-snapshots.ts';

/** `memory.search` after merging the `agents.defaults.memorySearch` alias and applying defaults. */
interface ResolvedMemoryConfig {
  readonly enabled: boolean;
  readonly provider: 'none' | 'openai' | 'openai-compatible' | 'ollama';
  readonly model?: string;
  readonly baseUrl?: string;
  readonly apiKey?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly dimensions?: number;
  readonly batchSize: number;
  readonly extraPaths: readonly string[];
  readonly chunking: { readonly tokens: number; readonly overlap: number };
  readonly search: SearchSettings;
  readonly watch: boolean;
  readonly watchDebounceMs: number;
  readonly maxPromptChars: number;
}

function merge(
  alias: MemorySearchConfig | undefined,
  current: MemorySearchConfig | undefined,
): MemorySearchConfig {
  const base = alias ?? {};
  const over = current ?? {};
  const hybrid = { ...base.query?.hybrid, ...over.query?.hybrid };
  return {
    ...base,
    ...over,
    remote: { ...base.remote, ...over.remote },
    chunking: { ...base.chunking, ...over.chunking },
    sync: { ...base.sync, ...over.sync },
    query: {
      ...base.query,
      ...over.query,
      hybrid: {
        ...hybrid,
        mmr: { ...base.query?.hybrid?.mmr, ...over.query?.hybrid?.mmr },
        temporalDecay: { ...base.query?.hybrid?.temporalDecay, ...over.query?.hybrid?.temporalDecay },
      },
    },
  };
}

// The package's code (the index, its tools, the session memory renderer, its default settings)
// loads with the first turn, method or command that uses memory, not at start-up (decision
// 0025). Nothing here imports a value from it statically: the bundle would then load it whole.
const loadMemoryPackage = () => import('@switchboard/memory');
let memoryPackage: ReturnType<typeof loadMemoryPackage> | undefined;
const memoryCode = (): ReturnType<typeof loadMemoryPackage> => {
  memoryPackage ??= loadMemoryPackage();
  return memoryPackage;
};
type MemoryPackage = Awaited<ReturnType<typeof loadMemoryPackage>>;

/** Resolved once per config object (a reload makes a new one): turns read it on every turn. */
const resolvedConfigs = new WeakMap<GatewayConfig, ResolvedMemoryConfig>();
const enabledByConfig = new WeakMap<GatewayConfig, boolean>();

/** Whether memory is on (`memory.search.enabled`, default true); needs no package code. */
function memoryEnabled(config: GatewayConfig): boolean {
  let enabled = enabledByConfig.get(config);
  if (enabled === undefined) {
    enabled = merge(config.agents.defaults.memorySearch, config.memory?.search).enabled ?? true;
    enabledByConfig.set(config, enabled);
  }
  return enabled;
}

function resolveMemoryConfig(config: GatewayConfig, memory: MemoryPackage): ResolvedMemoryConfig {
  let resolved = resolvedConfigs.get(config);
  if (resolved === undefined) {
    resolved = resolveMemoryConfigOnce(config, memory);
    resolvedConfigs.set(config, resolved);
  }
  return resolved;
}

function resolveMemoryConfigOnce(config: GatewayConfig, memory: MemoryPackage): ResolvedMemoryConfig {
  const search = merge(config.agents.defaults.memorySearch, config.memory?.search);
  const hybrid = search.query?.hybrid;
  const defaults = memory.defaultSearchSettings;
  const defaultChunkingSettings = memory.defaultChunkingSettings;
  return {
    enabled: search.enabled ?? true,
    provider: search.provider ?? 'none',
    model: search.model,
    baseUrl: search.remote?.baseUrl,
    apiKey: search.remote?.apiKey,
    headers: search.remote?.headers,
    dimensions: search.dimensions,
    batchSize: search.batchSize ?? 64,
    extraPaths: search.extraPaths ?? [],
    chunking: {
      tokens: search.chunking?.tokens ?? defaultChunkingSettings.tokens,
      overlap: search.chunking?.overlap ?? defaultChunkingSettings.overlap,
    },
    search: {
      maxResults: search.query?.maxResults ?? defaults.maxResults,
      minScore: search.query?.minScore ?? defaults.minScore,
      hybrid: {
        vectorWeight: hybrid?.vectorWeight ?? defaults.hybrid.vectorWeight,
        textWeight: hybrid?.textWeight ?? defaults.hybrid.textWeight,
        candidateMultiplier: hybrid?.candidateMultiplier ?? defaults.hybrid.candidateMultiplier,
      },
      mmr: {
        enabled: hybrid?.mmr?.enabled ?? defaults.mmr.enabled,
        lambda: hybrid?.mmr?.lambda ?? defaults.mmr.lambda,
      },
      temporalDecay: {
        enabled: hybrid?.temporalDecay?.enabled ?? defaults.temporalDecay.enabled,
        halfLifeDays: hybrid?.temporalDecay?.halfLifeDays ?? defaults.temporalDecay.halfLifeDays,
      },
    },
    watch: search.sync?.watch ?? true,
    watchDebounceMs: search.sync?.watchDebounceMs ?? 1500,
    maxPromptChars: config.memory?.maxPromptChars ?? 8000,
  };
}

/** The embeddings provider the config asks for; undefined (keyword-only) for `none` or a config that cannot work, logged with the reason. */
function embeddingsFor(
  memory: MemoryPackage,
  resolved: ResolvedMemoryConfig,
  logger: Logger,
): EmbeddingsProvider | undefined {
  const common = {
    headers: resolved.headers,
    dimensions: resolved.dimensions,
  };
  switch (resolved.provider) {
    case 'none':
      return undefined;
    case 'ollama':
      return memory.createOllamaEmbeddings({
        model: resolved.model ?? 'nomic-embed-text',
        baseUrl: resolved.baseUrl,
        ...common,
      });
    case 'openai':
      if (resolved.apiKey === undefined && resolved.baseUrl === undefined)
        logger.warn(
          'memory: memory.search.provider is "openai" but memory.search.remote.apiKey is not set; OpenAI will refuse the embeddings requests',
          {},
        );
      return memory.createOpenAiCompatibleEmbeddings({
        model: resolved.model ?? 'text-embedding-3-small',
        baseUrl: resolved.baseUrl,
        apiKey: resolved.apiKey,
        ...common,
      });
    case 'openai-compatible':
      if (resolved.baseUrl === undefined || resolved.model === undefined) {
        logger.warn(
          'memory: memory.search.provider "openai-compatible" needs memory.search.remote.baseUrl and memory.search.model; searching by keyword only',
          {},
        );
        return undefined;
      }
      return memory.createOpenAiCompatibleEmbeddings({
        model: resolved.model,
        baseUrl: resolved.baseUrl,
        apiKey: resolved.apiKey,
        ...common,
      });
  }
}

/** What `memory.*` methods and `switchboard memory` reach: the agents' indexes, opened on demand. */
export interface MemoryService {
  /** The configured agent ids (the default agent `main` first when it is not listed). */
  agentIds(): string[];
  /** Opens the agent's index if needed (a sync of what changed) and returns its status; undefined when memory is disabled. */
  status(agentId: string): Promise<MemoryStatus | undefined>;
  search(
    agentId: string,
    query: string,
    options: { maxResults?: number; minScore?: number },
  ): Promise<MemorySearchResponse>;
  /** Re-chunks every memory file of the agent (embeddings stay cached by content hash). */
  reindex(agentId: string): Promise<SyncReport>;
  /** True when memory is on in the live config. */
  enabled(): boolean;
}

const services = new WeakMap<SessionStore, MemoryService>();

/** The memory service of the gateway that owns `store` (methods reach it through their store). */
export function memoryServiceOf(store: SessionStore): MemoryService | undefined {
  return services.get(store);
}

export const memoryExtension: GatewayExtension = {
  id: 'memory',
  setup(context) {
    const logger = context.logger;
    /** By agent id; `key` is the settings the index was opened with (a reload that changes them reopens it). */
    const indexes = new Map<string, { readonly key: string; readonly opening: Promise<MemoryIndex> }>();

    async function indexFor(agentId: string, workspaceDir: string): Promise<MemoryIndex> {
      const memory = await memoryCode();
      // Synchronous from here: the check and the entry below cannot interleave with another call.
      const {
        maxPromptChars: _prompt,
        enabled: _enabled,
        ...resolved
      } = resolveMemoryConfig(context.config(), memory);
      const key = JSON.stringify({ workspaceDir, ...resolved });
      const existing = indexes.get(agentId);
      if (existing?.key === key) return existing.opening;
      if (existing !== undefined) {
        logger.info('memory: settings or workspace changed; reopening the index', { agentId });
        void existing.opening.then((index) => index.close()).catch(() => undefined);
      }
      const databasePath = join(context.stateDirectory, 'memory', `${encodeURIComponent(agentId)}.sqlite`);
      const embeddings = embeddingsFor(memory, { ...resolved, enabled: true, maxPromptChars: 0 }, logger);
      const opening = memory
        .openMemoryIndex({
          workspaceDir,
          databasePath,
          extraPaths: resolved.extraPaths,
          chunking: resolved.chunking,
          search: resolved.search,
          embeddings,
          embeddingBatchSize: resolved.batchSize,
          watch: resolved.watch,
          watchDebounceMs: resolved.watchDebounceMs,
          now: context.now,
          logger,
        })
        .then((index) => {
          const status = index.status();
          logger.info('memory: index open', {
            agentId,
            databasePath,
            files: status.files,
            chunks: status.chunks,
            mode: status.mode,
            // Keeps the spread (decision 0028, rule 1): log fields are merged over the logger's own.
            ...(status.note === undefined ? {} : { note: status.note }),
          });
          return index;
        });
      opening.catch((error: unknown) => {
        if (indexes.get(agentId)?.opening === opening) indexes.delete(agentId);
        logger.error('memory: the index could not open; the memory tools fail until it can', {
          agentId,
          databasePath,
          error: error instanceof Error ? error.message : String(error),
        });
      });
      indexes.set(agentId, { key, opening });
      return opening;
    }

    context.tools.register({
      id: 'memory',
      async tools({ config, agentId, workspaceDir }) {
        if (!memoryEnabled(config)) return [];
        const { createMemoryTools } = await memoryCode();
        return createMemoryTools(() => indexFor(agentId, workspaceDir));
      },
    });

    // MEMORY.md and the daily-note list as they were at the session's first turn (of the day):
    // the prompt stays byte-identical and a turn reads no files. The agent's own writes reach
    // the next session; within this one it has them in its transcript.
    const sessionMemory = createSessionSnapshots<string | undefined>();
    context.promptSections.register({
      id: 'memory-recall',
      order: 700,
      async render({ config, sessionId, workspaceDir, tools, date }) {
        if (!memoryEnabled(config)) return undefined;
        const memory = await memoryCode();
        const { memoryRecallText, renderSessionMemory } = memory;
        const resolved = resolveMemoryConfig(config, memory);
        const session =
          resolved.maxPromptChars === 0
            ? undefined
            : await sessionMemory.get(sessionId, `${workspaceDir}\0${resolved.maxPromptChars}\0${date}`, () =>
                renderSessionMemory({ workspaceDir, maxChars: resolved.maxPromptChars, today: date }),
              );
        // The recall instruction only when the agent's tool policy left it the tools.
        const recall = tools.some((tool) => tool.name === 'memory_search') ? memoryRecallText : undefined;
        const parts = [recall, session].filter((part): part is string => part !== undefined);
        return parts.length === 0 ? undefined : parts.join('\n\n');
      },
    });

    services.set(context.store, {
      agentIds() {
        const listed = (context.config().agents.list ?? []).map((agent) => agent.id.toLowerCase());
        return listed.includes('main') ? listed : ['main', ...listed];
      },
      enabled: () => memoryEnabled(context.config()),
      async status(agentId) {
        if (!memoryEnabled(context.config())) return undefined;
        return (await indexFor(agentId, context.workspaceFor(agentId))).status();
      },
      async search(agentId, query, options) {
        return (await indexFor(agentId, context.workspaceFor(agentId))).search(query, options);
      },
      async reindex(agentId) {
        return (await indexFor(agentId, context.workspaceFor(agentId))).reindex();
      },
    });

    context.onStop(async () => {
      const open = [...indexes.values()];
      indexes.clear();
      await Promise.all(
        open.map((entry) => entry.opening.then((index) => index.close()).catch(() => undefined)),
      );
    });
  },
};
