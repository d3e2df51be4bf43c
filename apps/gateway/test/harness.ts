// Starts a real gateway in-process on 127.0.0.1:0 with a temp state directory and testkit's
// fake Anthropic API behind the real SDK.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginDefinition } from '@switchboard/hooks';
import {
  createFakeAnthropic,
  type FakeAnthropic,
  type FakeAnthropicOptions,
} from '@switchboard/testkit/anthropic';
import { type CliIo, runCli } from '../src/cli/main.ts';
import { type GatewayHandle, type StartGatewayOptions, startGateway } from '../src/gateway/start-gateway.ts';
import { createGatewayLogger } from '../src/runtime/logger.ts';
import { connectClient, type ProtocolClient } from './protocol-client.ts';

export interface TestGateway {
  readonly gateway: GatewayHandle;
  readonly model: FakeAnthropic;
  readonly stateDirectory: string;
  readonly logs: string[];
  connect(options?: { scopes?: readonly string[]; caps?: readonly string[] }): Promise<ProtocolClient>;
  /** Resolves once nothing is running, queued, or journaled but unanswered (two idle readings in a row). */
  settle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  /** Extra config merged over the defaults (JSON-serializable). */
  readonly config?: Record<string, unknown>;
  readonly plugins?: readonly PluginDefinition[];
  readonly model?: FakeAnthropicOptions;
  readonly stateDirectory?: string;
  readonly gateway?: Partial<StartGatewayOptions>;
  /** Reuse a running fake model (restart tests). */
  readonly sharedModel?: FakeAnthropic;
}

export function writeConfig(
  stateDirectory: string,
  baseURL: string,
  extra: Record<string, unknown> = {},
): void {
  const config = {
    gateway: { port: 0, auth: { mode: 'token', token: 'test-gateway-token-0123456789' } },
    models: {
      providers: {
        anthropic: {
          baseUrl: baseURL,
          apiKey: 'test-key',
          models: [{ id: 'claude-sonnet-4-6', contextWindow: 200000, maxTokens: 4096 }],
        },
      },
    },
    agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
    ...extra,
  };
  writeFileSync(join(stateDirectory, 'switchboard.json'), JSON.stringify(config, null, 2));
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const model = options.sharedModel ?? (await createFakeAnthropic(options.model).start());
  const stateDirectory = options.stateDirectory ?? mkdtempSync(join(tmpdir(), 'switchboard-gateway-'));
  writeConfig(stateDirectory, model.baseURL, options.config);
  const logs: string[] = [];
  const gateway = await startGateway({
    stateDirectory,
    environment: {},
    logger: createGatewayLogger({ level: 'debug', write: (line) => logs.push(line) }),
    plugins: options.plugins,
    ...options.gateway,
  });
  const clients: ProtocolClient[] = [];
  return {
    gateway,
    model,
    stateDirectory,
    logs,
    async connect(connectOptions = {}) {
      const { client, hello } = await connectClient(gateway.url, {
        token: gateway.token,
        scopes: connectOptions.scopes ?? ['operator.admin'],
        caps: connectOptions.caps,
      });
      if (!hello.ok) throw new Error(`connect failed: ${JSON.stringify(hello.error)}`);
      clients.push(client);
      return client;
    },
    async settle(timeoutMs = 10_000) {
      const { client } = await connectClient(gateway.url, {
        token: gateway.token,
        scopes: ['operator.admin'],
      });
      try {
        const deadline = Date.now() + timeoutMs;
        let idle = 0;
        while (idle < 2) {
          if (Date.now() > deadline) throw new Error(`the gateway did not settle within ${timeoutMs} ms`);
          const status = await client.request('status', {});
          const runs = status.payload?.runs as
            | { running: number; waiting: number; queuedMessages: number }
            | undefined;
          const quiet =
            runs !== undefined &&
            runs.running + runs.waiting + runs.queuedMessages === 0 &&
            status.payload?.pendingInbound === 0;
          idle = quiet ? idle + 1 : 0;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        client.close();
      }
    },
    async close() {
      for (const client of clients) client.close();
      await gateway.close('test over', 2000);
      if (options.sharedModel === undefined) await model.close();
    },
  };
}

/** Runs the `switchboard` CLI in-process against a test gateway; its output as text. */
export async function runCliOn(
  argv: readonly string[],
  harness: TestGateway,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const error: string[] = [];
  const io: CliIo = {
    out: (text) => out.push(text),
    error: (text) => error.push(text),
    environment: {
      SWITCHBOARD_STATE_DIR: harness.stateDirectory,
      SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
    },
  };
  const code = await runCli(argv, io);
  return { code, stdout: out.join(''), stderr: error.join('') };
}
