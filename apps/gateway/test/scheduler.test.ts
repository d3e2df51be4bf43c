// Schedules end to end (issue 25, decision 0019): a real gateway, the fake Anthropic API behind
// the real SDK, a test channel in process and the fake Telegram behind grammy in a child
// gateway that is SIGKILLed at named crash points. Jobs fire on the real clock, a second or
// so ahead; every wait is for a condition, with generous timeouts.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFakeAnthropic,
  type FakeAnthropic,
  type FakeTurn,
  type RecordedRequest,
} from '@switchboard/testkit/anthropic';
import { createFakeTelegram, type FakeTelegram } from '@switchboard/testkit/telegram';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exitCodes } from '../src/cli/main.ts';
import { type ChildGateway, startChildGateway } from './child-gateway.ts';
import { runCliOn, startTestGateway, type TestGateway } from './harness.ts';
import type { ProtocolClient } from './protocol-client.ts';
import { createTestChannel } from './test-channel.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

const text = (entry: { message: { kind: string } }) => (entry.message as unknown as { text: string }).text;

type Request = RecordedRequest;

/** True when the request's last message carries a tool result (the model's second step). */
function afterToolCall(request: Request): boolean {
  const last = request.body?.messages.at(-1);
  return Array.isArray(last?.content) && last.content.some((block) => block.type === 'tool_result');
}

async function start(fallback: (request: Request) => FakeTurn, agents: Record<string, unknown> = {}) {
  const channel = createTestChannel();
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-scheduler-workspace-'));
  const harness = await startTestGateway({
    plugins: [channel.plugin],
    config: {
      channels: { testchat: { dmPolicy: 'allowlist', allowFrom: ['user-1'] } },
      agents: {
        defaults: { model: 'anthropic/claude-sonnet-4-6', workspace, heartbeat: { every: 0 }, ...agents },
      },
    },
    model: { fallback },
  });
  running.push(harness);
  return { harness, channel, workspace, admin: await harness.connect() };
}

async function payload(client: ProtocolClient, method: string, params: Record<string, unknown>) {
  const response = await client.request(method, params);
  if (!response.ok) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
  return response.payload as Record<string, unknown>;
}

interface JobView {
  id: string;
  state: { nextRunAtMs?: number; lastStatus?: string };
}
interface RunView {
  runId: string;
  status: string;
  deliveryStatus?: string;
  messageIds?: string[];
  detail?: string;
}

const runsOf = async (client: ProtocolClient, jobId: string) =>
  (await payload(client, 'cron.runs', { jobId })).runs as RunView[];

describe('schedules in a running gateway', () => {
  it('fires an `at` job once, delivers its reply once with a receipt, and removes the job', async () => {
    const { harness, channel, admin } = await start((request) => ({
      text: `noted: ${request.lastUserText}`,
    }));
    const added = await payload(admin, 'cron.add', {
      job: {
        name: 'stand-up',
        schedule: { kind: 'at', at: new Date(Date.now() + 1500).toISOString() },
        payload: { kind: 'agentTurn', message: 'write the stand-up note' },
        delivery: { mode: 'announce', channel: 'testchat', to: 'user-1' },
      },
    });
    const job = added.job as JobView & { deleteAfterRun: boolean };
    expect(job.deleteAfterRun).toBe(true);
    const [delivered] = await channel.waitForSent(1, 30_000);
    expect(text(delivered!)).toBe('noted: write the stand-up note');
    expect(delivered!.message.peer).toEqual({ kind: 'direct', id: 'user-1' });
    await vi.waitFor(async () => expect((await payload(admin, 'cron.list', {})).jobs).toEqual([]), {
      timeout: 15_000,
    });
    await harness.settle();
    expect(channel.sent).toHaveLength(1);
    expect(harness.model.messageRequests).toHaveLength(1);
    // The run had its own isolated session.
    const sessions = (await payload(admin, 'sessions.list', {})).sessions as Array<{ key: string }>;
    expect(sessions.map((session) => session.key)).toContainEqual(
      expect.stringMatching(new RegExp(`^agent:main:cron:${job.id}:run:`)),
    );
  });

  it('fires an `every` job once per period and records the run with its delivery', async () => {
    const { harness, channel, admin } = await start(() => ({ text: 'inbox: 3 new' }));
    const anchorMs = Date.now() - 60_000 + 1500; // the first run is 1.5 s away, the next a minute later
    const added = await payload(admin, 'cron.add', {
      job: {
        name: 'mail check',
        schedule: { kind: 'every', everyMs: 60_000, anchorMs },
        payload: { kind: 'agentTurn', message: 'check the mail' },
        delivery: { mode: 'announce', channel: 'testchat', to: 'user-1' },
      },
    });
    const jobId = (added.job as JobView).id;
    await channel.waitForSent(1, 30_000);
    await vi.waitFor(async () => expect((await runsOf(admin, jobId))[0]?.status).toBe('ok'), {
      timeout: 15_000,
    });
    const runs = await runsOf(admin, jobId);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ deliveryStatus: 'delivered', messageIds: [channel.sent[0]!.id] });
    const jobs = (await payload(admin, 'cron.list', {})).jobs as JobView[];
    expect(jobs.find((job) => job.id === jobId)?.state.nextRunAtMs).toBe(anchorMs + 120_000);
    await harness.settle();
    expect(channel.sent).toHaveLength(1);
    const status = await payload(admin, 'cron.status', {});
    expect(status).toMatchObject({ enabled: true, started: true, running: 0 });
    expect(status.scheduled).toBeGreaterThanOrEqual(1);
  });

  it('adds a reminder through the cron tool from a chat and delivers it back to that chat', async () => {
    const { harness, channel, admin } = await start((request) => {
      if (afterToolCall(request)) return { text: 'Reminder set.' };
      if (request.lastUserText?.includes('remind me') === true) {
        return {
          toolCalls: [
            {
              name: 'cron',
              input: {
                action: 'add',
                job: {
                  name: 'stretch',
                  schedule: { kind: 'at', at: new Date(Date.now() + 2000).toISOString() },
                  payload: { kind: 'agentTurn', message: 'Tell the user it is time to stretch.' },
                },
              },
            },
          ],
        };
      }
      return { text: 'Time to stretch!' };
    });
    await channel.receive({ text: 'remind me in two seconds to stretch' });
    const sent = await channel.waitForSent(2, 30_000);
    expect(sent.map(text)).toEqual(['Reminder set.', 'Time to stretch!']);
    expect(sent[1]!.message.peer).toEqual({ kind: 'direct', id: 'user-1' });
    const tools = harness.model.messageRequests[0]?.body?.tools?.map((tool) => tool.name);
    expect(tools).toContain('cron');
    await harness.settle();
    expect(channel.sent).toHaveLength(2);
    expect((await payload(admin, 'cron.list', {})).jobs).toEqual([]);
  });

  it("counts failed runs and alerts the job's chat after two failures in a row", async () => {
    const { channel, admin } = await start(() => ({ fault: { type: 'permission' } }));
    const added = await payload(admin, 'cron.add', {
      job: {
        name: 'digest',
        schedule: { kind: 'every', everyMs: 3_600_000 },
        payload: { kind: 'agentTurn', message: 'write the digest' },
        delivery: { mode: 'announce', channel: 'testchat', to: 'user-1' },
      },
    });
    const jobId = (added.job as JobView).id;
    const first = (await payload(admin, 'cron.run', { jobId })).run as RunView & { error: string };
    expect(first.status).toBe('error');
    expect(channel.sent).toHaveLength(0);
    const second = (await payload(admin, 'cron.run', { jobId })).run as RunView & { error: string };
    expect(second.status).toBe('error');
    const [alert] = await channel.waitForSent(1, 30_000);
    expect(text(alert!)).toMatch(/^Scheduled job "digest" failed 2 times in a row: /);
    const jobs = (await payload(admin, 'cron.list', {})).jobs as Array<
      JobView & { state: { consecutiveErrors: number } }
    >;
    expect(jobs.find((job) => job.id === jobId)?.state.consecutiveErrors).toBe(2);
  });

  it('refuses a bad job with the key path, and a missing job with NOT_FOUND', async () => {
    const { admin } = await start(() => ({ text: 'unused' }));
    const bad = await admin.request('cron.add', {
      job: {
        name: 'x',
        schedule: { kind: 'cron', expr: '61 * * * *' },
        payload: { kind: 'agentTurn', message: 'hi' },
      },
    });
    expect(bad.ok).toBe(false);
    expect(bad.error?.message).toContain('cron "61 * * * *"');
    const missing = await admin.request('cron.run', { jobId: 'no-such-job' });
    expect(missing.error?.details).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('switchboard cron', () => {
  it('adds, lists, runs, shows the runs of and removes a job', async () => {
    const { harness, channel } = await start(() => ({ text: 'weekly report: all green' }));
    const job = JSON.stringify({
      name: 'weekly report',
      schedule: { kind: 'cron', expr: '0 9 * * 1', tz: 'Europe/Berlin' },
      payload: { kind: 'agentTurn', message: 'write the weekly report' },
      delivery: { mode: 'announce', channel: 'testchat', to: 'user-1' },
    });
    const added = await runCliOn(['cron', 'add', job, '--json'], harness);
    expect(added.code).toBe(exitCodes.ok);
    const jobId = (JSON.parse(added.stdout) as { job: { id: string } }).job.id;
    const listed = await runCliOn(['cron', 'list'], harness);
    expect(listed.stdout).toContain(`${jobId}  weekly report`);
    expect(listed.stdout).toContain('cron 0 9 * * 1 (Europe/Berlin); next ');
    const ran = await runCliOn(['cron', 'run', jobId], harness);
    expect(ran.code).toBe(exitCodes.ok);
    expect(ran.stdout).toMatch(/ok \(delivered\)/);
    expect(channel.sent.map(text)).toEqual(['weekly report: all green']);
    expect((await runCliOn(['cron', 'runs', jobId], harness)).stdout).toContain('weekly report: all green');
    expect((await runCliOn(['cron', 'rm', jobId], harness)).code).toBe(exitCodes.ok);
    expect((await runCliOn(['cron', 'rm', jobId], harness)).code).toBe(exitCodes.notFound);
    expect((await runCliOn(['cron', 'add', '{not json'], harness)).code).toBe(exitCodes.usage);
    expect((await runCliOn(['cron', 'list'], harness)).stdout).toContain('No scheduled jobs.');
  });
});

describe('the heartbeat', () => {
  it('makes no model call while HEARTBEAT.md is missing, drops HEARTBEAT_OK, and delivers a real finding once', async () => {
    let heartbeats = 0;
    const { harness, channel, admin, workspace } = await start(
      () => {
        heartbeats += 1;
        return heartbeats === 2
          ? { text: 'The nightly build is red since 03:10.', usage: { input_tokens: 120, output_tokens: 12 } }
          : { text: 'HEARTBEAT_OK', usage: { input_tokens: 100, output_tokens: 3 } };
      },
      { heartbeat: { every: '1s', target: 'testchat', to: 'user-1' } },
    );
    // Missing file: skipped without a model call.
    await vi.waitFor(
      async () =>
        expect(
          (await runsOf(admin, 'heartbeat-main')).filter((run) => run.status === 'skipped').length,
        ).toBeGreaterThanOrEqual(2),
      { timeout: 20_000 },
    );
    expect(harness.model.messageRequests).toHaveLength(0);
    expect((await runsOf(admin, 'heartbeat-main'))[0]?.detail).toBe('HEARTBEAT.md is missing');

    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'HEARTBEAT.md'), '# Heartbeat\n- check the nightly build\n');
    await channel.waitForSent(1, 30_000);
    await vi.waitFor(() => expect(heartbeats).toBeGreaterThanOrEqual(3), { timeout: 20_000 });
    // Scaffolding only again: heartbeats stop calling the model.
    writeFileSync(join(workspace, 'HEARTBEAT.md'), '# Heartbeat\n');
    await harness.settle();
    expect(channel.sent.map(text)).toEqual(['The nightly build is red since 03:10.']);
    const prompts = harness.model.messageRequests.map((request) => request.body?.messages ?? []);
    // Light context: every heartbeat is one user message in a fresh session, with the file in it.
    for (const messages of prompts) {
      expect(messages).toHaveLength(1);
      expect(JSON.stringify(messages[0])).toContain('check the nightly build');
    }
    const runs = await runsOf(admin, 'heartbeat-main');
    expect(runs.some((run) => run.detail === 'HEARTBEAT_OK: nothing needs attention')).toBe(true);
    const status = await payload(admin, 'cron.status', {});
    const [today] = status.heartbeat as Array<{ runs: number; skipped: number; totalTokens: number }>;
    expect(today!.runs).toBe(heartbeats);
    expect(today!.skipped).toBeGreaterThanOrEqual(2);
    expect(today!.totalTokens).toBeGreaterThanOrEqual(120 + 12 + 100 + 3);
    // The same numbers in the gateway's `status`.
    const full = await payload(admin, 'status', {});
    expect((full.schedules as { heartbeat: unknown[] }).heartbeat[0]).toMatchObject({ runs: today!.runs });
  });
});

describe('schedules across a crash (SIGKILL)', () => {
  const token = 'scheduler-crash-token-0123456789';
  const chatId = 4242;
  const fixtures: Array<{ telegram: FakeTelegram; model: FakeAnthropic; gateway: ChildGateway }> = [];
  afterEach(async () => {
    for (const fixture of fixtures.splice(0)) {
      await fixture.gateway.stop();
      await fixture.telegram.close();
      await fixture.model.close();
    }
  });

  it.each([
    ['after-turn-persisted', 'during the run: the turn is stored, its final and delivery are not'],
    ['cron-before-delivery', 'between the run and the delivery'],
    ['after-chunk-recorded', 'after the delivery, before the job is finished'],
  ])(
    'delivers exactly once when killed at %s (%s)',
    async (point) => {
      const telegram = await createFakeTelegram().start();
      const model = await createFakeAnthropic({
        fallback: () => ({ text: 'Your 9 o’clock reminder: call the dentist.' }),
      }).start();
      telegram.user(chatId, { firstName: 'Ada', username: 'ada' });
      const stateDirectory = mkdtempSync(join(tmpdir(), 'switchboard-scheduler-crash-'));
      writeFileSync(
        join(stateDirectory, 'switchboard.json'),
        JSON.stringify({
          gateway: { port: 0, auth: { mode: 'token', token } },
          models: { providers: { anthropic: { baseUrl: model.baseURL, apiKey: 'test-key' } } },
          agents: { defaults: { model: 'anthropic/claude-sonnet-4-6', heartbeat: { every: 0 } } },
          channels: {
            telegram: {
              botToken: telegram.token,
              apiRoot: telegram.apiRoot,
              pollingTimeoutSeconds: 1,
              dmPolicy: 'allowlist',
              allowFrom: [String(chatId)],
            },
          },
        }),
      );
      const gateway = await startChildGateway({
        stateDirectory,
        token,
        environment: { NODE_ENV: 'test', SWITCHBOARD_TEST_CRASH_AT: point },
      });
      fixtures.push({ telegram, model, gateway });
      const client = await gateway.client();
      const added = await payload(client, 'cron.add', {
        job: {
          name: 'dentist',
          deleteAfterRun: false,
          schedule: { kind: 'at', at: new Date(Date.now() + 2000).toISOString() },
          payload: { kind: 'agentTurn', message: 'Remind the user to call the dentist.' },
          delivery: { mode: 'announce', channel: 'telegram', to: String(chatId) },
        },
      });
      const jobId = (added.job as JobView).id;
      expect(await gateway.waitForExit(60_000)).toBe('SIGKILL');

      await gateway.restart({});
      const restarted = await gateway.client();
      await vi.waitFor(async () => expect((await runsOf(restarted, jobId))[0]?.status).toBe('ok'), {
        timeout: 60_000,
        interval: 200,
      });
      await gateway.settle(30_000);
      const messages = telegram.messagesIn(chatId);
      expect(messages.map((message) => message.text)).toEqual(['Your 9 o’clock reminder: call the dentist.']);
      const runs = await runsOf(restarted, jobId);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'ok', deliveryStatus: 'delivered' });
      // The turn ran once: the resumed run found its final instead of asking the model again.
      expect(model.messageRequests).toHaveLength(1);
      const jobs = (await payload(restarted, 'cron.list', {})).jobs as Array<JobView & { enabled: boolean }>;
      expect(jobs.find((job) => job.id === jobId)).toMatchObject({
        enabled: false,
        state: { lastStatus: 'ok' },
      });
    },
    180_000,
  );
});
