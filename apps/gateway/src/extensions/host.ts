// Runs the extensions' setup, start and stop callbacks. A failing extension is reported with
// its id and stops the start (a broken feature the operator configured must not be silently
// missing); a failing start or stop callback is logged and the others still run.
import type { Logger } from '@switchboard/hooks';
import type { ExtensionContext, ExtensionRuntime, GatewayExtension } from './extension.ts';
import { createModelProviderRegistry, type ModelProviderRegistry } from './model-providers.ts';
import { createPromptSectionRegistry, type PromptSectionRegistry } from './prompt-sections.ts';
import { createToolRegistry, type ToolRegistry } from './tool-registry.ts';

export interface ExtensionHost {
  readonly tools: ToolRegistry;
  readonly promptSections: PromptSectionRegistry;
  readonly modelProviders: ModelProviderRegistry;
  start(runtime: ExtensionRuntime): Promise<void>;
  stop(): Promise<void>;
}

export async function setUpExtensions(
  extensions: readonly GatewayExtension[],
  base: Omit<ExtensionContext, 'tools' | 'promptSections' | 'modelProviders' | 'onStart' | 'onStop'>,
): Promise<ExtensionHost> {
  const tools = createToolRegistry();
  const promptSections = createPromptSectionRegistry();
  const modelProviders = createModelProviderRegistry();
  const starts: Array<{ id: string; callback: (runtime: ExtensionRuntime) => void | Promise<void> }> = [];
  const stops: Array<{ id: string; callback: () => void | Promise<void> }> = [];
  for (const extension of extensions) {
    const context: ExtensionContext = {
      ...base,
      tools,
      promptSections,
      modelProviders,
      onStart: (callback) => starts.push({ id: extension.id, callback }),
      onStop: (callback) => stops.push({ id: extension.id, callback }),
    };
    try {
      await extension.setup(context);
    } catch (error) {
      throw new Error(
        `extension "${extension.id}" failed to set up: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  const logger: Logger = base.logger;
  return {
    tools,
    promptSections,
    modelProviders,
    async start(runtime) {
      for (const { id, callback } of starts) {
        try {
          await callback(runtime);
        } catch (error) {
          logger.error('extension failed to start', { extension: id, error: String(error) });
        }
      }
    },
    async stop() {
      for (const { id, callback } of [...stops].reverse()) {
        try {
          await callback();
        } catch (error) {
          logger.warn('extension failed to stop cleanly', { extension: id, error: String(error) });
        }
      }
    },
  };
}
