import { z } from 'zod';
import { defineMethod, type GatewayMethod } from '../protocol/method-contract.ts';
import type { ConfigReloadReport, ReloadTrigger } from '../runtime/config-reload.ts';

export interface ConfigMethodServices {
  readonly reloadConfig: (trigger: ReloadTrigger) => Promise<ConfigReloadReport>;
}

/**
 * `config.reload` (`switchboard config reload`): reads the config file again and applies what
 * can apply without a restart. Answers with what changed, what needs a restart, and what
 * happened to channel accounts; an invalid file answers `ok: false` with its problems (the
 * running config is kept). Admin only: it changes credentials and access policy.
 */
export function configMethods(services: ConfigMethodServices): GatewayMethod[] {
  return [
    defineMethod({
      name: 'config.reload',
      scope: 'operator.admin',
      params: z.looseObject({}),
      handle: () => services.reloadConfig('request'),
    }),
  ];
}
