// Tools move between the plugin SDK and the loop unchanged.
import type { PluginTool } from '@switchboard/hooks';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './tools.ts';
import type { AgentTool, AnyAgentTool } from './types.ts';

describe('tool types', () => {
  it('a loop tool is a plugin tool, and a plugin tool is a loop tool', () => {
    const tool = defineTool({
      name: 'weather',
      description: 'Weather for a city',
      parameters: z.object({ city: z.string() }),
      async execute(_id, args) {
        expectTypeOf(args).toEqualTypeOf<{ city: string }>();
        return { content: [{ type: 'text', text: args.city }] };
      },
    });
    expectTypeOf(tool).toExtend<PluginTool>();
    expectTypeOf<PluginTool>().toExtend<AnyAgentTool>();
    expectTypeOf<AgentTool<z.ZodObject<{ n: z.ZodNumber }>>>().toExtend<AnyAgentTool>();
  });
});
