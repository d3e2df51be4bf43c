// Runs the channel conformance suite (@switchboard/testkit/conformance) for one channel: the
// channel's platform fake and testkit's fake model in this process, the real gateway in a
// child process it can crash and restart.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import {
  type ChannelConformanceDriver,
  type ConformanceContext,
  type ConformanceNotAnswered,
  channelConformanceCases,
  conformanceAccess,
} from '@switchboard/testkit/conformance';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';

export interface ChannelConformanceOptions {
  /** Per-case timeout. Default 60 s. */
  readonly caseTimeoutMs?: number;
  /**
   * Names this run in the test report (`channel conformance: telegram (webhook)`), for a
   * channel that runs the suite more than once (polling and webhook, HTTP and socket).
   */
  readonly label?: string;
  /** Only these cases (by name), for debugging one case. Default all. */
  readonly only?: readonly string[];
}

/** How many lines of the gateway's output a failing case reports. */
const outputTailLines = 40;

export function runChannelConformance(
  createDriver: () => ChannelConformanceDriver,
  options: ChannelConformanceOptions = {},
): void {
  const driver = createDriver();
  let model: FakeAnthropic;
  let gateway: ChildGateway;
  let context: ConformanceContext;

  const title = `channel conformance: ${driver.channelId}${options.label === undefined ? '' : ` (${options.label})`}`;
  describe(title, () => {
    beforeAll(async () => {
      await driver.start();
      model = await createFakeAnthropic({ fallback: 'echo' }).start();
      const stateDirectory = mkdtempSync(join(tmpdir(), `switchboard-conformance-${driver.channelId}-`));
      const token = 'conformance-token-0123456789abcdef';
      const config = {
        gateway: { port: 0, auth: { mode: 'token', token } },
        models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
        agents: { defaults: { model: 'anthropic/claude-sonnet-4-6' } },
        messages: { queue: { debounceMs: 0 } },
        channels: { [driver.channelId]: driver.channelConfig(conformanceAccess(driver)) },
      };
      writeFileSync(join(stateDirectory, 'switchboard.json'), JSON.stringify(config, null, 2));
      const environment = driver.environment?.();
      gateway = await startChildGateway({
        stateDirectory,
        token,
        environment,
      });
      await driver.onGatewayStarted?.({ httpUrl: gateway.httpUrl });
      context = {
        driver,
        model: {
          script(turns) {
            model.enqueue(
              ...turns.map((turn) => ({
                text: turn.text,
                latency: turn.delayMs === undefined ? undefined : { firstByteMs: turn.delayMs },
              })),
            );
          },
          prompts: () => model.messageRequests.map((request) => request.lastUserText ?? ''),
          lastUserContent: () => model.lastRequest?.messages.at(-1)?.content,
        },
        gateway: {
          async approvePairing(channel, code) {
            const response = await (await gateway.client()).request('pairing.approve', { channel, code });
            if (!response.ok) throw new Error(`pairing.approve failed: ${JSON.stringify(response.error)}`);
          },
          async crashAndRestart() {
            await gateway.restart();
            await driver.onGatewayStarted?.({ httpUrl: gateway.httpUrl });
          },
          settle: () => gateway.settle(),
          async notAnswered() {
            const response = await (await gateway.client()).request('status', {});
            if (!response.ok) throw new Error(`status failed: ${JSON.stringify(response.error)}`);
            return response.payload?.notAnswered as ConformanceNotAnswered;
          },
        },
      };
    }, 60_000);

    afterAll(async () => {
      await gateway?.stop();
      await driver.stop();
      await model?.close();
    });

    const cases = channelConformanceCases.filter(
      (conformanceCase) => options.only === undefined || options.only.includes(conformanceCase.name),
    );
    for (const conformanceCase of cases) {
      it(
        conformanceCase.name,
        async () => {
          const outputBefore = gateway.output.length;
          try {
            await conformanceCase.run(context);
          } catch (error) {
            // The gateway's own log usually says why (a send failed, a channel did not start).
            const tail = gateway.output
              .slice(outputBefore)
              .join('')
              .split('\n')
              .slice(-outputTailLines)
              .join('\n');
            if (error instanceof Error && tail.trim() !== '') {
              error.message = `${error.message}\n--- gateway output during the case (last ${outputTailLines} lines) ---\n${tail}`;
            }
            throw error;
          }
        },
        options.caseTimeoutMs ?? 60_000,
      );
    }
  });
}
