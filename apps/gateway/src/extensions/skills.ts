// Skills (issue 22, decision 0016): SKILL.md folders from the agent's workspace, ~/.agents,
// the state directory and skills.load.extraDirs, offered to the model as a `## Skills`
// catalogue (prompt section, order 600) fixed per session, read on demand with the
// `skill_read` tool, and shown to operators with every reason a skill is left out
// (`skills.status`, `switchboard skills list|info`).
import { defineTool } from '@switchboard/core-loop';
import { definePlugin, withLogFields } from '@switchboard/hooks';
import { resolveDefaultAgentId } from '@switchboard/routing';
import type {
  SkillStatusEntry,
  SkillsManager,
  SkillsQuery,
  SkillsReport,
  SkillsSnapshot,
} from '@switchboard/skills';
import { z } from 'zod';
import type { GatewayConfig } from '../config/schema.ts';
import { ToolError } from '../tools/errors.ts';
import type { GatewayExtension } from './extension.ts';

/** The tool the catalogue tells the model to read skills with (skills may live outside the workspace). */
const skillReadToolName = 'skill_read';

const skillReadParameters = z.object({
  skill: z.string().min(1).describe('The skill name, or the exact <location> from <available_skills>'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('A file inside the skill folder, relative to it (default SKILL.md)'),
});

const statusParameters = z.strictObject({
  agentId: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
});

/** The skill filter of an agent: its own `skills` list, else `agents.defaults.skills`, else all. */
function agentFilter(config: GatewayConfig, agentId: string): readonly string[] | undefined {
  const own = config.agents.list?.find((agent) => agent.id.toLowerCase() === agentId)?.skills;
  return own ?? config.agents.defaults.skills;
}

/** A skill's state in words, as `skills list` prints it. */
interface SkillStatusView extends SkillStatusEntry {
  readonly state: 'eligible' | 'command_only' | 'excluded';
  readonly why: readonly string[];
}

export interface SkillsStatusResult {
  readonly agentId: string;
  readonly workspace: string;
  readonly version: number;
  readonly skills: readonly SkillStatusView[];
  readonly problems: SkillsReport['problems'];
  readonly catalogue: {
    readonly skills: number;
    readonly characters: number;
    readonly trimming: SkillsReport['catalogue']['trimming'];
  };
}

export const skillsExtension: GatewayExtension = {
  id: 'skills',
  async setup(context) {
    const { logger } = context;
    // The package (yaml, json5, which, chokidar) loads on the first turn or status call:
    // a gateway never asked about skills pays nothing at start-up.
    let manager: Promise<SkillsManager> | undefined;
    let describeExclusion: ((reason: SkillStatusEntry['reasons'][number]) => string) | undefined;
    const managerFor = (): Promise<SkillsManager> => {
      manager ??= import('@switchboard/skills').then((skills) => {
        describeExclusion = skills.describeExclusion;
        const load = context.config().skills.load;
        return skills.createSkillsManager({
          roots: (workspaceDirectory) =>
            skills.standardSkillRoots({
              workspaceDirectory,
              stateDirectory: context.stateDirectory,
              extraDirectories: context.config().skills.load.extraDirs,
            }),
          settings: () => context.config().skills,
          config: context.config,
          watch: load.watch ? { debounceMs: load.watchDebounceMs } : false,
          logger: withLogFields(logger, { component: 'skills' }),
          onChange: (version) => logger.debug('skills snapshot version bumped', { version }),
        });
      });
      return manager;
    };
    const query = (agentId: string): SkillsQuery => {
      const filter = agentFilter(context.config(), agentId);
      return {
        agentId,
        workspaceDirectory: context.workspaceFor(agentId),
        readTool: skillReadToolName,
        filter,
      };
    };
    /** The session's snapshot: fixed for its session id, so the prompt stays byte-identical. */
    const snapshotFor = async (agentId: string, sessionId: string): Promise<SkillsSnapshot> =>
      (await managerFor()).snapshot(sessionId, query(agentId));
    const warnedNoTool = new Set<string>();

    context.promptSections.register({
      id: 'skills',
      order: 600,
      async render(section) {
        const snapshot = await snapshotFor(section.agentId, section.sessionId);
        if (snapshot.prompt === '') return undefined;
        if (
          !section.tools.some((tool) => tool.name === skillReadToolName) &&
          !warnedNoTool.has(section.agentId)
        ) {
          warnedNoTool.add(section.agentId);
          logger.warn(
            `agent "${section.agentId}" has skills in its prompt but the ${skillReadToolName} tool is not allowed (tools.allow/deny): it cannot open them`,
          );
        }
        return snapshot.prompt;
      },
    });

    context.tools.register({
      id: 'skills',
      async tools({ agentId, sessionId }) {
        const snapshot = await snapshotFor(agentId, sessionId);
        if (snapshot.skills.length === 0) return [];
        const { readSkillFile } = await import('@switchboard/skills');
        return [
          defineTool({
            name: skillReadToolName,
            description:
              'Read a skill from <available_skills>: its SKILL.md (by name or <location>), or a file in its folder (path).',
            parameters: skillReadParameters,
            async execute(_id, args) {
              try {
                const result = await readSkillFile(snapshot, {
                  skill: args.skill,
                  path: args.path,
                });
                return {
                  content: [
                    { type: 'text', text: result.truncated ? `${result.text}\n[truncated]` : result.text },
                  ],
                  details: { skill: result.skill, path: result.path, characters: result.text.length },
                };
              } catch (error) {
                throw new ToolError('TOOL_WORKSPACE_REFUSED', (error as Error).message, { cause: error });
              }
            },
          }),
        ];
      },
    });

    const status = async (params: unknown): Promise<SkillsStatusResult> => {
      const parsed = statusParameters.safeParse(params ?? {});
      const { SkillsError } = await import('@switchboard/skills');
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new SkillsError(
          'SKILLS_INVALID_OPTIONS',
          `skills.status: ${issue?.path.join('.') || 'params'}: ${issue?.message ?? 'invalid'}`,
        );
      }
      const agentId = (parsed.data.agentId ?? resolveDefaultAgentId(context.config())).toLowerCase();
      const report = await (await managerFor()).report(query(agentId));
      const describe = describeExclusion ?? ((reason) => reason.type);
      const skills = report.skills
        .filter((skill) => parsed.data.name === undefined || skill.name === parsed.data.name)
        .map(
          (skill): SkillStatusView => ({
            ...skill,
            state: skill.inPrompt ? 'eligible' : skill.command ? 'command_only' : 'excluded',
            why: skill.reasons.map(describe),
          }),
        );
      if (parsed.data.name !== undefined && skills.length === 0) {
        throw new SkillsError(
          'SKILLS_UNKNOWN_SKILL',
          `no skill "${parsed.data.name}" was found for agent "${agentId}"`,
        );
      }
      return {
        agentId,
        workspace: context.workspaceFor(agentId),
        version: report.version,
        skills,
        problems: report.problems,
        catalogue: {
          skills: report.catalogue.skills.length,
          characters: report.catalogue.text.length,
          trimming: report.catalogue.trimming,
        },
      };
    };

    // Operators ask through the protocol: `skills.status` (the CLI's `skills list|info`).
    await context.plugins.register(
      definePlugin({
        name: 'skills',
        version: '1.0.0',
        specVersion: 1,
        description: 'SKILL.md folders: skills.status for operators',
        setup(api) {
          api.registerGatewayMethod('skills.status', status);
        },
      }),
    );

    context.onStop(async () => {
      if (manager !== undefined) await (await manager).close();
    });
  },
};
