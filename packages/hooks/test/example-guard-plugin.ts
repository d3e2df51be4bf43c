// The hook plugin example of the README, verbatim; readme-examples.test.ts runs it.
// (The one change: `export default` names its type, as this repo's isolatedDeclarations requires.)
import { definePlugin, type PluginDefinition, z } from '@switchboard/hooks';

const guard: PluginDefinition<{
  blockedTools: string[];
  signature?: string | undefined;
  metricsUrl?: string | undefined;
}> = definePlugin({
  name: 'guard', // the key under plugins.entries
  version: '1.0.0',
  specVersion: 1,
  configSchema: z.object({
    blockedTools: z.array(z.string()).default(['exec']),
    signature: z.string().optional(),
    metricsUrl: z.url().optional(),
  }),
  setup(api) {
    // Gate: runs before every tool call; fails closed if this handler throws or hangs.
    api.on(
      'before_tool_call',
      (event) =>
        api.config.blockedTools.includes(event.toolName)
          ? { block: true, blockReason: `${event.toolName} is disabled on this gateway` }
          : undefined,
      { priority: 100, timeoutMs: 2_000 },
    );

    // Gate, fails open: rewrite or cancel each outbound chunk.
    api.on('message_sending', (event) => {
      if (event.message.kind !== 'text' || api.config.signature === undefined) return;
      return { text: `${event.message.text}\n\n${api.config.signature}` };
    });

    // Observe: concurrent, result ignored. `context.signal` aborts at the timeout.
    const { metricsUrl } = api.config;
    if (metricsUrl !== undefined) {
      api.on('agent_end', async (event, context) => {
        await fetch(metricsUrl, {
          method: 'POST',
          body: JSON.stringify({ agent: event.agentId, tokens: event.usage.totalTokens }),
          signal: context.signal,
        });
      });
    }

    api.logger.info('guard ready', { blocked: api.config.blockedTools });
  },
});

export default guard;
