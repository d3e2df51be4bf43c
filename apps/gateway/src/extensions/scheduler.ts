// Schedules (decision 0019): cron jobs and the heartbeat. Offers the `cron` tool, starts the
// scheduler once the gateway listens, and stops it (runs in progress stay claimed) at close.
// `cron.*` methods reach the same service through `cronServiceOf(store)`.
import type { GatewayExtension } from './extension.ts';
import { createCronTool } from './scheduler/cron-tool.ts';
import { createCronService } from './scheduler/service.ts';

export const schedulerExtension: GatewayExtension = {
  id: 'scheduler',
  setup(context) {
    const cron = createCronService(context);
    context.tools.register({
      id: 'cron',
      tools: (toolContext) =>
        toolContext.config.cron.enabled ? [createCronTool(cron.service, toolContext)] : [],
    });
    context.onStart((runtime) => cron.start(runtime));
    context.onStop(() => cron.stop());
  },
};
