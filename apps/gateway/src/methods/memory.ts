// `memory.status`, `memory.search`, `memory.reindex`: each agent's long-term memory index for
// operators and the CLI (decision 0018). They reach the memory extension through the store.
import { SwitchboardError } from '@switchboard/hooks';
import { z } from 'zod';
import { type MemoryService, memoryServiceOf } from '../extensions/memory.ts';
import { GatewayError } from '../gateway-error.ts';
import { defineMethod, type GatewayMethod } from '../protocol/method-contract.ts';
import type { MethodServices } from './context.ts';

/** A memory error in the protocol's words, with its own code kept in the details. */
function protocolError(error: unknown): unknown {
  // By its code, not `instanceof MemoryError`: importing the class would load the memory
  // package at start, which the gateway defers to first use (decision 0025).
  if (!SwitchboardError.isInstance(error) || !error.code.startsWith('MEMORY_')) return error;
  const code =
    error.code === 'MEMORY_INVALID_ARGUMENT' ||
    error.code === 'MEMORY_INVALID_SETTINGS' ||
    error.code === 'MEMORY_PATH_REFUSED'
      ? 'INVALID_PARAMS'
      : error.code === 'MEMORY_FILE_NOT_FOUND'
        ? 'NOT_FOUND'
        : 'INTERNAL';
  return new GatewayError(code, error.message, { details: { memoryCode: error.code } });
}

export function memoryMethods(services: MethodServices): GatewayMethod[] {
  async function call<T>(
    agentId: string | undefined,
    work: (service: MemoryService, agentId: string) => Promise<T>,
  ): Promise<T> {
    const service = memoryServiceOf(services.store);
    if (service === undefined)
      throw new GatewayError('CONFLICT', 'the memory extension is not set up in this gateway');
    if (!service.enabled())
      throw new GatewayError('CONFLICT', 'memory is off (memory.search.enabled is false)');
    const agent = (agentId ?? 'main').toLowerCase();
    if (!service.agentIds().includes(agent))
      throw new GatewayError('NOT_FOUND', `no agent "${agent}" (agents: ${service.agentIds().join(', ')})`);
    try {
      return await work(service, agent);
    } catch (error) {
      throw protocolError(error);
    }
  }
  return [
    defineMethod({
      name: 'memory.status',
      scope: 'operator.read',
      params: z.looseObject({ agentId: z.string().min(1).optional() }),
      async handle(params) {
        const service = memoryServiceOf(services.store);
        if (service?.enabled() === true && params.agentId === undefined) {
          const agents = [];
          for (const agentId of service.agentIds())
            agents.push({ agentId, ...(await call(agentId, (memory) => memory.status(agentId))) });
          return { enabled: true, agents };
        }
        if (service !== undefined && !service.enabled()) return { enabled: false, agents: [] };
        const status = await call(params.agentId, (memory, agentId) => memory.status(agentId));
        return { enabled: true, agents: [{ agentId: (params.agentId ?? 'main').toLowerCase(), ...status }] };
      },
    }),
    defineMethod({
      name: 'memory.search',
      scope: 'operator.read',
      params: z.looseObject({
        query: z.string().min(1),
        agentId: z.string().min(1).optional(),
        maxResults: z.number().int().min(1).max(50).optional(),
        minScore: z.number().min(0).max(1).optional(),
      }),
      handle: (params) =>
        call(params.agentId, (memory, agentId) =>
          memory.search(agentId, params.query, {
            maxResults: params.maxResults,
            minScore: params.minScore,
          }),
        ),
    }),
    defineMethod({
      name: 'memory.reindex',
      scope: 'operator.admin',
      params: z.looseObject({ agentId: z.string().min(1).optional() }),
      handle: (params) => call(params.agentId, (memory, agentId) => memory.reindex(agentId)),
    }),
  ];
}
