// What the agent features cost a turn that does not use them (issue 28, "Cost per feature"):
// gateway CPU per message with skills (a workspace skill), memory (MEMORY.md and search),
// an MCP server (the testkit's stdio server, connected, its tools offered) and the sandboxed
// shell configured, against the bare gateway (every feature off). The fake model never calls a
// tool, so no turn uses them. Both gateways run side by side and take the same load in turns
// (bare, configured, bare, …), 1,000 messages over 50 fresh sessions per round; medians of the
// rounds and the median of each pair's ratio. --each adds one gateway per feature alone.
//
//   pnpm --filter @switchboard/gateway build
//   pnpm exec node --conditions=@switchboard/source apps/gateway/bench/feature-cost.bench.ts [--source] [--quick] [--each]
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcpStdioServerScript } from '@switchboard/testkit/mcp';
import {
  against,
  benchConfig,
  type Client,
  connect,
  gatewayEntry,
  median,
  processStats,
  type RunningGateway,
  startFakeModel,
  startGatewayProcess,
  stop,
} from './gateway-process.ts';

const source = process.argv.includes('--source');
const quick = process.argv.includes('--quick');
const entry = gatewayEntry(source);
const rounds = quick ? 3 : 5;
const roundMessages = 1000;

const model = await startFakeModel();

/** A workspace with one skill and a MEMORY.md, as an operator who uses both has. */
function workspaceWithFeatures(): string {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-bench-workspace-'));
  mkdirSync(join(workspace, 'skills', 'release-notes'), { recursive: true });
  writeFileSync(
    join(workspace, 'skills', 'release-notes', 'SKILL.md'),
    '---\nname: release-notes\ndescription: Write release notes from a list of merged changes. Use when asked for release notes.\n---\n\n# Release notes\n\nGroup the changes by kind, newest first.\n',
  );
  writeFileSync(
    join(workspace, 'MEMORY.md'),
    '# Memory\n\n- The user prefers short answers.\n- Deploys happen on Tuesdays.\n',
  );
  return workspace;
}

const workspace = workspaceWithFeatures();
const offEverything = {
  memory: { search: { enabled: false } },
  cron: { enabled: false },
  tools: { deny: ['group:memory', 'group:sandbox', 'group:cron', 'group:subagents', 'group:sessions'] },
};
const mcp = { servers: { files: { command: process.execPath, args: [mcpStdioServerScript] } } };
/** Every feature off, then (with --each) one feature at a time on top, then all of them. */
const configurations: { readonly name: string; readonly config: Record<string, unknown> }[] = [
  {
    name: 'bare (every feature off)',
    config: { ...benchConfig(model.baseURL, { sandbox: { mode: 'off' }, workspace }), ...offEverything },
  },
  ...(process.argv.includes('--each')
    ? [
        {
          name: 'skills only',
          config: {
            ...benchConfig(model.baseURL, { sandbox: { mode: 'off' }, workspace }),
            ...offEverything,
            skills: {},
          },
        },
        {
          name: 'memory only',
          config: {
            ...benchConfig(model.baseURL, { sandbox: { mode: 'off' }, workspace }),
            cron: { enabled: false },
            tools: { deny: ['group:sandbox', 'group:cron', 'group:subagents', 'group:sessions'] },
          },
        },
        {
          name: 'MCP only',
          config: {
            ...benchConfig(model.baseURL, { sandbox: { mode: 'off' }, workspace }),
            ...offEverything,
            mcp,
          },
        },
        {
          name: 'sandbox only',
          config: {
            ...benchConfig(model.baseURL, { workspace }),
            ...offEverything,
            tools: { deny: ['group:memory', 'group:cron', 'group:subagents', 'group:sessions'] },
          },
        },
      ]
    : []),
  {
    name: 'skills, memory, MCP and sandbox configured',
    config: { ...benchConfig(model.baseURL, { workspace }), mcp },
  },
];
const gateways: { readonly name: string; readonly gateway: RunningGateway; readonly client: Client }[] = [];
for (const { name, config } of configurations) {
  const gateway = await startGatewayProcess({ entry, source, config });
  gateways.push({ name, gateway, client: await connect(gateway.port) });
}

async function round(index: number, tag: string): Promise<number> {
  const { gateway, client } = gateways[index]!;
  const pid = gateway.child.pid!;
  const before = processStats(pid).cpuMs;
  await Promise.all(
    Array.from({ length: 50 }, async (_, session) => {
      for (let message = 0; message < roundMessages / 50; message += 1)
        await client.agent(`agent:main:${tag}-${session}`, `message ${message}`);
    }),
  );
  return (processStats(pid).cpuMs - before) / roundMessages;
}

// Warm each (JIT, the MCP connection, the skills snapshot), then measure in turns.
for (const index of gateways.keys()) await round(index, 'warm');
const cpu: number[][] = gateways.map(() => []);
for (let index = 0; index < rounds; index += 1)
  for (const gatewayIndex of gateways.keys())
    cpu[gatewayIndex]!.push(await round(gatewayIndex, `round-${index}`));
const ratioOf = (gatewayIndex: number) =>
  median(cpu[gatewayIndex]!.map((value, index) => value / cpu[0]![index]!));
console.log(
  `Switchboard feature cost bench (${source ? 'sources' : 'built bundle'}), Node ${process.version}, median of ${rounds} rounds of ${roundMessages} messages over 50 sessions`,
);
for (const [index, { name }] of gateways.entries())
  console.log(
    `gateway CPU per message, ${name}: ${median(cpu[index]!).toFixed(2)} ms${index === 0 ? '' : `, ${ratioOf(index).toFixed(2)}× bare`}`,
  );
const ratio = ratioOf(gateways.length - 1);
console.log(
  `configured but unused ÷ bare: ${ratio.toFixed(2)}× (median of the rounds' ratios) ${against(ratio, 1.1, '×')}`,
);
for (const { gateway, client } of gateways) {
  client.close();
  await stop(gateway);
}
model.child.kill();
