// Every protocol method the gateway serves, by name: the built-in ones and those plugins register.
import type { PluginRegistry } from '@switchboard/hooks';
import { z } from 'zod';
import { defineMethod, type GatewayMethod } from '../protocol/method-contract.ts';
import { agentMethods } from './agent.ts';
import { chatMethods } from './chat.ts';
import { type ConfigMethodServices, configMethods } from './config.ts';
import type { MethodServices } from './context.ts';
import { cronMethods } from './cron.ts';
import { memoryMethods } from './memory.ts';
import { sessionMethods } from './sessions.ts';
import { systemMethods } from './system.ts';

export function createGatewayMethods(
  services: MethodServices,
  options: { readonly registry: PluginRegistry; readonly reloadConfig: ConfigMethodServices['reloadConfig'] },
): Map<string, GatewayMethod> {
  const pluginMethods: GatewayMethod[] = options.registry.gatewayMethods().map((registration) =>
    defineMethod({
      name: registration.name,
      scope: 'operator.write',
      params: z.unknown(),
      handle: (params) =>
        registration.handler(params, { method: registration.name, signal: new AbortController().signal }),
    }),
  );
  return new Map<string, GatewayMethod>(
    [
      ...agentMethods(services),
      ...chatMethods(services),
      ...sessionMethods(services),
      ...systemMethods(services),
      ...configMethods({ reloadConfig: options.reloadConfig }),
      ...cronMethods(services),
      ...memoryMethods(services),
      ...pluginMethods,
    ].map((method) => [method.name, method]),
  );
}
