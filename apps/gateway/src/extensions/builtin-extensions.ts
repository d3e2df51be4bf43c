// The extensions every gateway sets up, in order. A feature adds one import and one entry;
// each extension does nothing for a feature its config leaves off.
import { coreExtension } from './core.ts';
import type { GatewayExtension } from './extension.ts';
import { mcpExtension } from './mcp.ts';
import { memoryExtension } from './memory.ts';
import { providersExtension } from './providers.ts';
import { sandboxExtension } from './sandbox.ts';
import { schedulerExtension } from './scheduler.ts';
import { skillsExtension } from './skills.ts';
import { subagentsExtension } from './subagents.ts';

export const builtinExtensions: readonly GatewayExtension[] = [
  coreExtension,
  providersExtension,
  skillsExtension,
  memoryExtension,
  schedulerExtension,
  mcpExtension,
  sandboxExtension,
  subagentsExtension,
];
