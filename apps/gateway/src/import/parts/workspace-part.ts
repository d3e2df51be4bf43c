// The workspace part: workspaces stay where they are (switchboard.json points at them); the
// report says which exist and which Markdown files they hold.
import { existsSync } from 'node:fs';
import type { ImportedAgent } from '../config-conversion/types.ts';
import { listFiles } from '../openclaw-source.ts';
import type { PartReport, ReportLine } from '../report-types.ts';

/** Reports each agent's workspace. */
export function workspacePart(agents: readonly ImportedAgent[]): PartReport {
  const lines: ReportLine[] = agents.map((agent) => {
    const files = listFiles(agent.workspace).filter((name) => name.endsWith('.md'));
    return existsSync(agent.workspace)
      ? {
          status: 'unchanged' as const,
          subject: `agent ${agent.id}: ${agent.workspace}`,
          detail: `stays where it is${files.length === 0 ? '' : ` (${files.join(', ')})`}; switchboard.json points at it`,
        }
      : {
          status: 'problem' as const,
          subject: `agent ${agent.id}: ${agent.workspace}`,
          detail: 'does not exist; the agent starts with an empty workspace there',
        };
  });
  return { part: 'workspace', lines };
}
