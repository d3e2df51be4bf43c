// A model key as the running gateway sees it (issue 17, items 4 and 5): `switchboard doctor`
// asks the gateway instead of reading its own shell, and says where each answer came from;
// a gateway without a key says so at start-up, and a turn without one fails with its own
// code and plain words (protocol final, `agent` CLI, WebChat, channel reply), sending nothing.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeAnthropic, type FakeAnthropic } from '@switchboard/testkit/anthropic';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, exitCodes, runCli } from '../src/cli/main.ts';
import { describeRunError } from '../src/webchat/static/describe-error.js';
import { startTestGateway, type TestGateway } from './harness.ts';
import { createTestChannel, sentText } from './test-channel.ts';

const plainWords =
  'no API key is configured for anthropic: set ANTHROPIC_API_KEY or models.providers.anthropic.apiKey — turns will fail until then';

async function cli(argv: readonly string[], environment: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const error: string[] = [];
  const io: CliIo = { out: (text) => out.push(text), error: (text) => error.push(text), environment };
  const code = await runCli(argv, io);
  return { code, stdout: out.join(''), stderr: error.join('') };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface DoctorReport {
  ok: boolean;
  source: string;
  gateway: { url: string; answered: boolean; pid?: number };
  checks: Array<{ name: string; ok: boolean; detail: string; warning?: boolean; source: string }>;
}

let model: FakeAnthropic;
beforeAll(async () => {
  model = await createFakeAnthropic().start();
});
afterAll(async () => {
  await model.close();
});
const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

/**
 * A gateway whose config has no key (no `models.providers`): its model and key come from its
 * own environment only, as with `ANTHROPIC_API_KEY=… switchboard gateway run`.
 */
async function gatewayWithEnvironment(environment: NodeJS.ProcessEnv, config: Record<string, unknown> = {}) {
  const channel = createTestChannel();
  const harness = await startTestGateway({
    sharedModel: model,
    plugins: [channel.plugin],
    config: { models: { providers: {} }, ...config },
    gateway: { environment },
  });
  running.push(harness);
  return { harness, channel };
}

describe('doctor agrees with the running gateway', () => {
  it("reports the key in the gateway's environment and the endpoint the gateway reaches, though its own shell has neither", async () => {
    const { harness } = await gatewayWithEnvironment(
      { ANTHROPIC_API_KEY: 'key-only-the-gateway-has', ANTHROPIC_BASE_URL: model.baseURL },
      { channels: { testchat: {} } },
    );
    // Doctor's shell: the state directory and the address, no ANTHROPIC_* at all.
    const shell = {
      SWITCHBOARD_STATE_DIR: harness.stateDirectory,
      SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
    };
    const human = await cli(['doctor'], shell);
    expect(human.code).toBe(exitCodes.ok);
    const fromGateway = human.stdout.split(/^From the running gateway at /m)[1] ?? '';
    expect(fromGateway).toMatch(/^ws:\/\/127\.0\.0\.1:\d+ \(pid \d+\), as it sees them:$/m);
    expect(fromGateway).toMatch(
      /^ok +model credentials: anthropic\/claude-sonnet-4-6 has a credential: ANTHROPIC_API_KEY in the gateway's environment$/m,
    );
    expect(fromGateway).toMatch(
      new RegExp(
        `^ok +model endpoint: ${model.baseURL.replaceAll('.', '\\.')} answers \\(HTTP \\d+ in \\d+ ms\\)$`,
        'm',
      ),
    );
    expect(fromGateway).toMatch(/^ok +channel testchat\/default: connected/m);
    expect(fromGateway).toMatch(/^ok +queue: 0 running, 0 waiting for a slot, 0 messages queued/m);
    expect(fromGateway).toMatch(/^ok +cooldowns: none/m);
    expect(human.stdout).not.toMatch(/no API key|not reachable/);

    const report = JSON.parse((await cli(['doctor', '--json'], shell)).stdout) as DoctorReport;
    expect(report).toMatchObject({ ok: true, source: 'gateway', gateway: { answered: true } });
    const sourceOf = (name: string) => report.checks.find((check) => check.name === name)?.source;
    expect(sourceOf('model credentials')).toBe('gateway');
    expect(sourceOf('model endpoint')).toBe('gateway');
    expect(sourceOf('config')).toBe('config');
    expect(sourceOf('node')).toBe('here');

    // And the gateway does answer with that key.
    model.enqueue({ text: 'answered' });
    const agent = await cli(['agent', '-m', 'hello'], shell);
    expect(agent).toMatchObject({ code: exitCodes.ok, stdout: 'answered\n' });
    expect(model.lastRequest?.credential).toBe('key-only-the-gateway-has');
  });

  it('fails (exit 1) when the running gateway has no key, whatever the shell has', async () => {
    const { harness } = await gatewayWithEnvironment({ ANTHROPIC_BASE_URL: model.baseURL });
    const report = JSON.parse(
      (
        await cli(['doctor', '--json'], {
          SWITCHBOARD_STATE_DIR: harness.stateDirectory,
          SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
          ANTHROPIC_API_KEY: 'a-key-only-this-shell-has',
        })
      ).stdout,
    ) as DoctorReport;
    expect(report.ok).toBe(false);
    expect(report.checks.find((check) => check.name === 'model credentials')).toEqual({
      name: 'model credentials',
      ok: false,
      detail: `anthropic/claude-sonnet-4-6: ${plainWords}`,
      source: 'gateway',
    });
  });

  it('with no gateway answering, reads the config and this shell, and says so', async () => {
    const { harness } = await gatewayWithEnvironment({ ANTHROPIC_BASE_URL: model.baseURL });
    const port = await closedPort();
    const shell = {
      SWITCHBOARD_STATE_DIR: harness.stateDirectory,
      SWITCHBOARD_GATEWAY_URL: `ws://127.0.0.1:${port}`,
      ANTHROPIC_BASE_URL: model.baseURL,
    };
    const without = await cli(['doctor'], shell);
    expect(without.code).toBe(exitCodes.failed);
    expect(without.stdout).toMatch(
      /^From the config file \(.*switchboard\.json\) and this shell's environment, because no gateway answered:$/m,
    );
    expect(without.stdout).toContain(`FAIL  model credentials: anthropic/claude-sonnet-4-6: ${plainWords}`);
    expect(without.stdout).toMatch(
      new RegExp(
        `^warn  model endpoint: ${model.baseURL.replaceAll('.', '\\.')} answers from here|^ok +model endpoint: ${model.baseURL.replaceAll('.', '\\.')} answers from here`,
        'm',
      ),
    );
    expect(without.stdout).toMatch(
      new RegExp(
        `^The gateway at ws://127\\.0\\.0\\.1:${port}:\\nwarn  gateway: not reachable: no gateway is running at ws://127\\.0\\.0\\.1:${port}`,
        'm',
      ),
    );

    const withKey = JSON.parse(
      (await cli(['doctor', '--json'], { ...shell, ANTHROPIC_API_KEY: 'shell-key' })).stdout,
    ) as DoctorReport;
    expect(withKey).toMatchObject({ ok: true, source: 'config', gateway: { answered: false } });
    expect(withKey.checks.find((check) => check.name === 'model credentials')).toMatchObject({
      ok: true,
      detail: "anthropic/claude-sonnet-4-6 has a credential: ANTHROPIC_API_KEY in this shell's environment",
      source: 'config',
    });
    expect(withKey.checks.find((check) => check.name === 'gateway')).toMatchObject({
      ok: false,
      warning: true,
      source: 'gateway',
    });
  });
});

describe('no model key', () => {
  it('is warned about at start-up, and a turn fails at once with its own code and plain words everywhere', async () => {
    const { harness, channel } = await gatewayWithEnvironment(
      { ANTHROPIC_BASE_URL: model.baseURL },
      { channels: { testchat: { dmPolicy: 'allowlist', allowFrom: ['user-1'] } } },
    );
    const requestsBefore = model.messageRequests.length;
    expect(harness.logs.filter((line) => line.includes(plainWords))).toEqual([
      expect.stringMatching(
        / WARN {2}no API key is configured for anthropic: .* model=anthropic\/claude-sonnet-4-6\n$/,
      ),
    ]);

    // The protocol final: RUN_FAILED with the class and the model error's own code.
    const client = await harness.connect();
    const { final } = await client.requestFinal('agent', { message: 'hello', idempotencyKey: 'no-key' });
    expect(final.ok).toBe(false);
    expect(final.error).toMatchObject({
      message: plainWords,
      details: {
        code: 'RUN_FAILED',
        errorClass: 'no_credentials',
        errorCode: 'MODEL_CREDENTIALS_MISSING',
      },
    });
    expect(final.error?.details).not.toHaveProperty('retryAfterMs');
    // WebChat: the chat error event, in the page's words.
    const chatError = await client.waitForEvent(
      (event) => event.event === 'chat' && event.payload?.state === 'error',
    );
    expect(chatError.payload).toMatchObject({
      errorMessage: plainWords,
      errorDetail: { errorClass: 'no_credentials' },
    });
    const shown = describeRunError(chatError.payload as Parameters<typeof describeRunError>[0]);
    expect(shown.title).toBe('No API key is configured for anthropic, so the gateway cannot answer.');
    expect(shown.title).not.toMatch(/rejected/);

    // The CLI.
    const cliAgent = await cli(['agent', '-m', 'hello'], {
      SWITCHBOARD_STATE_DIR: harness.stateDirectory,
      SWITCHBOARD_GATEWAY_URL: harness.gateway.url,
    });
    expect(cliAgent.code).toBe(exitCodes.failed);
    expect(cliAgent.stderr).toContain(plainWords);
    expect(cliAgent.stderr).not.toMatch(/key rejected|trying again may work/);

    // A channel sender gets the same words.
    await channel.receive({ text: 'anyone there?' });
    const [reply] = await channel.waitForSent(1);
    expect(sentText(reply)).toBe(`⚠️ ${plainWords}`);

    // Nothing reached the model, nothing was retried, nothing cools down.
    await harness.settle();
    expect(model.messageRequests.length).toBe(requestsBefore);
    const status = await client.request('status', {});
    expect(status.payload?.authProfiles).toMatchObject({ profiles: [] });
  });

  it('a configured anthropic provider without a key names the config key, not the variable it ignores', async () => {
    const { harness } = await gatewayWithEnvironment(
      { ANTHROPIC_API_KEY: 'ignored: the config declares the provider' },
      { models: { providers: { anthropic: { baseUrl: model.baseURL, models: [] } } } },
    );
    const warning = harness.logs.find((line) => line.includes('no API key is configured for anthropic'));
    expect(warning).toContain(
      'no API key is configured for anthropic: set models.providers.anthropic.apiKey (for example to "${ANTHROPIC_API_KEY}"',
    );
    const client = await harness.connect();
    const { final } = await client.requestFinal('agent', { message: 'hello', idempotencyKey: 'declared' });
    expect(final.error?.message).toBe(warning?.match(/WARN {2}(.*) model=/)?.[1]);
  });
});
