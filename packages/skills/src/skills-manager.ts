// The skills of an agent for one session: discovery cached until the watcher sees a change,
// eligibility and the per-agent filter, the catalogue, and snapshots fixed per session.
import type { Logger } from '@switchboard/hooks';
import { noopLogger } from '@switchboard/hooks';
import { passesSkillFilter } from './agent-filter.ts';
import { createHostBinaryProbe } from './binaries.ts';
import { type Catalogue, defaultSkillLimits, renderCatalogue, type SkillLimits } from './catalogue.ts';
import {
  type DiscoveryResult,
  defaultMaxDepth,
  discoverSkills,
  type SkillRoot,
  type SkillTier,
} from './discovery.ts';
import {
  type BinaryProbe,
  checkEligibility,
  describeExclusion,
  type SkillEntrySettings,
  type SkillExclusion,
  skillKeyOf,
} from './eligibility.ts';
import type { SkillProblem } from './skill-file.ts';
import { createSkillsWatcher, defaultWatchDebounceMs, type SkillsWatcher } from './watcher.ts';

/** The `skills` config the manager reads at use time (a reload applies to the next snapshot). */
export interface SkillsSettings {
  readonly entries?: Readonly<Record<string, SkillEntrySettings>>;
  readonly allowBundled?: readonly string[];
  readonly limits?: Partial<SkillLimits>;
}

/** Whose skills: one agent in one workspace. */
export interface SkillsQuery {
  readonly agentId: string;
  readonly workspaceDirectory: string;
  /** The agent's resolved filter (`resolveAgentSkillFilter`): undefined means all. */
  readonly filter?: readonly string[];
  /** Where `requires.bins` is checked; default the manager's (the host PATH). */
  readonly binaries?: BinaryProbe;
  /** The tool the catalogue tells the model to read a skill with (default `read`). */
  readonly readTool?: string;
}

/** One skill found, with its state for the agent: `skills list`, `skills.status`, doctor. */
export interface SkillStatusEntry {
  readonly name: string;
  readonly key: string;
  readonly description: string;
  readonly tier: SkillTier;
  readonly plugin?: string;
  readonly location: string;
  readonly baseDirectory: string;
  readonly emoji?: string;
  readonly userInvocable: boolean;
  /** The variable `skills.entries.<key>.apiKey` fills. */
  readonly primaryEnv?: string;
  /** In the agent's `<available_skills>` catalogue. */
  readonly inPrompt: boolean;
  /** Usable as `/name` (eligible, user-invocable, passes the agent filter, not shadowed). */
  readonly command: boolean;
  /** Every reason it is not in the prompt (empty when `inPrompt`). */
  readonly reasons: readonly SkillExclusion[];
}

export interface SkillsReport {
  readonly version: number;
  readonly agentId: string;
  readonly skills: readonly SkillStatusEntry[];
  /** SKILL.md files that could not be loaded (file, line, what was wrong). */
  readonly problems: readonly SkillProblem[];
  readonly catalogue: Catalogue;
}

/** A skill a session may use: in its catalogue or as a command. */
export interface SnapshotSkill {
  readonly name: string;
  readonly key: string;
  readonly description: string;
  readonly location: string;
  readonly baseDirectory: string;
  readonly inPrompt: boolean;
  readonly command: boolean;
  readonly primaryEnv?: string;
}

/**
 * What one session sees, fixed when the session first asks so its system prompt stays
 * byte-identical (the provider's prompt cache); a new session (or `/new`, a new session id)
 * gets the current one.
 */
export interface SkillsSnapshot {
  readonly version: number;
  readonly agentId: string;
  readonly sessionId: string;
  /** The `## Skills` section, or '' when no skill is offered. */
  readonly prompt: string;
  readonly skills: readonly SnapshotSkill[];
}

export interface SkillsManagerOptions {
  /** The roots of a workspace, highest precedence first (`standardSkillRoots`). */
  readonly roots: (workspaceDirectory: string) => readonly SkillRoot[];
  readonly settings: () => SkillsSettings;
  /** The gateway config, for `requires.config`. */
  readonly config?: () => unknown;
  readonly platform?: string;
  readonly environment?: Readonly<Record<string, string | undefined>>;
  readonly binaries?: BinaryProbe;
  /** Watch the roots (default true, debounce 250 ms); false: discovery is cached until `refresh()`. */
  readonly watch?: boolean | { readonly debounceMs?: number };
  readonly maxDepth?: number;
  readonly logger?: Logger;
  /** Sessions whose snapshot is kept (least recently used beyond this are rebuilt). Default 1000. */
  readonly maxSnapshots?: number;
  /** Called after the watcher bumped the version. */
  readonly onChange?: (version: number, paths: readonly string[]) => void;
}

/**
 * Contract: `snapshot` returns the same object for a session id until it is evicted, whatever
 * changes on disk; `report` always reflects the current version; discovery runs at most once
 * per version and set of roots (a turn never rescans the disk); `close` stops the watcher.
 */
export interface SkillsManager {
  snapshot(sessionId: string, query: SkillsQuery): Promise<SkillsSnapshot>;
  report(query: SkillsQuery): Promise<SkillsReport>;
  /** Bumped by every debounced change the watcher saw, and by `refresh`. */
  version(): number;
  /** Forget cached discovery (a manual rescan). */
  refresh(): void;
  /** Resolves once the watches of every root seen so far are in place. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createSkillsManager(options: SkillsManagerOptions): SkillsManager {
  const logger = options.logger ?? noopLogger;
  const platform = options.platform ?? process.platform;
  const environment = options.environment ?? process.env;
  const defaultBinaries = options.binaries ?? createHostBinaryProbe();
  const maxSnapshots = options.maxSnapshots ?? 1000;
  const maxDepth = options.maxDepth ?? defaultMaxDepth;
  let currentVersion = 1;
  const scans = new Map<string, { readonly version: number; readonly result: Promise<DiscoveryResult> }>();
  const snapshots = new Map<string, SkillsSnapshot>();
  const binaryCache = new WeakMap<BinaryProbe, { version: number; found: Map<string, Promise<boolean>> }>();
  const logged = new Set<string>();
  const watchedRoots = new Set<string>();

  const bump = () => {
    currentVersion += 1;
    scans.clear();
    logged.clear();
  };

  const watchOption = options.watch ?? true;
  const watcher: SkillsWatcher | undefined =
    watchOption === false
      ? undefined
      : createSkillsWatcher({
          debounceMs:
            (typeof watchOption === 'object' ? watchOption.debounceMs : undefined) ?? defaultWatchDebounceMs,
          depth: maxDepth + 1,
          onChange: (paths) => {
            bump();
            logger.info('skills changed on disk; new sessions and /new see the change', {
              version: currentVersion,
              paths: paths.slice(0, 10),
            });
            options.onChange?.(currentVersion, paths);
          },
          onError: (error) => logger.warn('skills watcher error', { error: error.message }),
        });

  function cachedProbe(probe: BinaryProbe): BinaryProbe {
    let cache = binaryCache.get(probe);
    if (cache === undefined || cache.version !== currentVersion) {
      cache = { version: currentVersion, found: new Map() };
      binaryCache.set(probe, cache);
    }
    const found = cache.found;
    return {
      where: probe.where,
      has(name) {
        let result = found.get(name);
        if (result === undefined) {
          result = probe.has(name).catch(() => false);
          found.set(name, result);
        }
        return result;
      },
    };
  }

  async function discover(workspaceDirectory: string, limits: SkillLimits): Promise<DiscoveryResult> {
    const roots = options.roots(workspaceDirectory);
    if (watcher !== undefined) {
      for (const root of roots) watchedRoots.add(root.directory);
      // Watch before scanning, so an edit made during the scan is not lost.
      await watcher.watch([...watchedRoots]);
    }
    const key = `${limits.maxSkillFileBytes}\0${roots.map((root) => `${root.tier}:${root.plugin ?? ''}:${root.directory}`).join('\0')}`;
    const cached = scans.get(key);
    if (cached !== undefined && cached.version === currentVersion) return cached.result;
    const result = discoverSkills(roots, { maxDepth, maxSkillFileBytes: limits.maxSkillFileBytes });
    scans.set(key, { version: currentVersion, result });
    return result;
  }

  async function report(query: SkillsQuery): Promise<SkillsReport> {
    const version = currentVersion;
    const settings = options.settings();
    const limits: SkillLimits = { ...defaultSkillLimits, ...settings.limits };
    const discovered = await discover(query.workspaceDirectory, limits);
    const binaries = cachedProbe(query.binaries ?? defaultBinaries);
    const context = {
      platform,
      environment,
      entries: settings.entries ?? {},
      allowBundled: settings.allowBundled,
      config: options.config?.(),
      binaries,
    };
    const evaluated = await Promise.all(
      discovered.skills.map(async (skill) => {
        const key = skillKeyOf(skill.definition);
        const reasons: SkillExclusion[] = [];
        if (skill.shadowedBy !== undefined) reasons.push({ type: 'shadowed', ...skill.shadowedBy });
        reasons.push(...(await checkEligibility(skill, context)));
        if (!passesSkillFilter(query.filter, skill.definition.name, key)) {
          reasons.push({ type: 'filtered_by_agent', agentId: query.agentId });
        }
        return { skill, key, reasons };
      }),
    );
    const offerable = evaluated.filter(
      (entry) => entry.reasons.length === 0 && !entry.skill.definition.disableModelInvocation,
    );
    const catalogue = renderCatalogue(
      offerable.map(({ skill }) => ({
        name: skill.definition.name,
        description: skill.definition.description,
        location: skill.location,
      })),
      { limits, readTool: query.readTool },
    );
    const inCatalogue = new Set(catalogue.skills.map((skill) => skill.location));
    const droppedBy = new Map(catalogue.trimming.dropped.map((drop) => [drop.name, drop.limit]));
    const skills = evaluated.map(({ skill, key, reasons }): SkillStatusEntry => {
      const all = [...reasons];
      if (reasons.length === 0 && skill.definition.disableModelInvocation)
        all.push({ type: 'model_invocation_disabled' });
      const limit = reasons.length === 0 ? droppedBy.get(skill.definition.name) : undefined;
      if (limit !== undefined) all.push({ type: 'over_budget', limit, value: limits[limit] });
      const { definition } = skill;
      return {
        name: definition.name,
        key,
        description: definition.description,
        tier: skill.tier,
        plugin: skill.plugin,
        location: skill.location,
        baseDirectory: skill.baseDirectory,
        emoji: definition.metadata.emoji,
        userInvocable: definition.userInvocable,
        primaryEnv: definition.metadata.primaryEnv,
        inPrompt: inCatalogue.has(skill.location),
        command: reasons.length === 0 && definition.userInvocable,
        reasons: all,
      };
    });
    const result = { version, agentId: query.agentId, skills, problems: discovered.problems, catalogue };
    logOnce(result);
    return result;
  }

  function logOnce(result: SkillsReport): void {
    const key = `${result.version}\0${result.agentId}`;
    if (logged.has(key)) return;
    logged.add(key);
    for (const problem of result.problems) {
      logger.warn(`skill not loaded: ${problem.message}`, { code: problem.code, path: problem.path });
    }
    const leftOut = result.skills.filter(
      (skill) => !skill.inPrompt && !skill.reasons.some((reason) => reason.type === 'shadowed'),
    );
    for (const skill of leftOut) {
      logger.info(`skill "${skill.name}" is not in the prompt of agent "${result.agentId}"`, {
        location: skill.location,
        reasons: skill.reasons.map(describeExclusion),
      });
    }
    const { trimming } = result.catalogue;
    if (trimming.shortenedDescriptions || trimming.droppedDescriptions || trimming.dropped.length > 0) {
      logger.warn(`skills catalogue of agent "${result.agentId}" is over budget`, {
        shortenedDescriptions: trimming.shortenedDescriptions,
        droppedDescriptions: trimming.droppedDescriptions,
        leftOut: trimming.dropped.map((drop) => `${drop.name} (${drop.limit})`),
      });
    }
  }

  return {
    async snapshot(sessionId, query) {
      const cacheKey = `${query.agentId}\0${sessionId}`;
      const existing = snapshots.get(cacheKey);
      if (existing !== undefined) {
        // Least recently used order: move it to the end.
        snapshots.delete(cacheKey);
        snapshots.set(cacheKey, existing);
        return existing;
      }
      const current = await report(query);
      const snapshot: SkillsSnapshot = {
        version: current.version,
        agentId: query.agentId,
        sessionId,
        prompt: current.catalogue.text,
        skills: current.skills
          .filter((skill) => skill.inPrompt || skill.command)
          .map((skill) => ({
            name: skill.name,
            key: skill.key,
            description: skill.description,
            location: skill.location,
            baseDirectory: skill.baseDirectory,
            inPrompt: skill.inPrompt,
            command: skill.command,
            primaryEnv: skill.primaryEnv,
          })),
      };
      // Two turns racing for a new session get the same snapshot.
      const raced = snapshots.get(cacheKey);
      if (raced !== undefined) return raced;
      snapshots.set(cacheKey, snapshot);
      while (snapshots.size > maxSnapshots) {
        const oldest = snapshots.keys().next().value;
        if (oldest === undefined) break;
        snapshots.delete(oldest);
      }
      return snapshot;
    },
    report,
    version: () => currentVersion,
    refresh: bump,
    ready: async () => {
      await watcher?.ready();
    },
    close: async () => {
      await watcher?.close();
    },
  };
}
