// Who receives a run's events (decision 0025, "Event fan-out"): a connection with the
// `session-scoped-events` capability (WebChat, the CLI) gets the events of the runs and
// sessions it named in its own requests and one `session.run` summary at the start and end of
// every other run; a connection without it (OpenClaw's clients) gets every run's events and no
// summary, as OpenClaw's protocol says.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './harness.ts';
import { connectClient, type EventFrame } from './protocol-client.ts';

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((harness) => harness.close()));
});

const scoped = ['tool-events', 'session-scoped-events'];
const runsIn = (events: readonly EventFrame[], event: string) =>
  [
    ...new Set(events.filter((frame) => frame.event === event).map((frame) => String(frame.payload?.runId))),
  ].sort();
const summaries = (events: readonly EventFrame[]) =>
  events
    .filter((frame) => frame.event === 'session.run')
    .map((frame) =>
      `${frame.payload?.sessionKey} ${frame.payload?.runId} ${frame.payload?.state} ${frame.payload?.status ?? ''}`.trim(),
    );

describe('event audience', () => {
  it('a session-scoped connection gets its own runs, a summary of the others; an OpenClaw-style one gets everything', async () => {
    const harness = await startTestGateway({ model: { fallback: 'echo' } });
    running.push(harness);
    const mine = await harness.connect({ caps: scoped });
    const other = await harness.connect({ caps: scoped });
    const everything = await harness.connect({ caps: ['tool-events'] });

    await mine.requestFinal('agent', {
      message: 'first',
      sessionKey: 'agent:main:mine',
      idempotencyKey: 'run-mine',
    });
    await other.requestFinal('agent', {
      message: 'second',
      sessionKey: 'agent:main:other',
      idempotencyKey: 'run-other',
    });
    await everything.waitForEvent(
      (frame) =>
        frame.event === 'chat' && frame.payload?.runId === 'run-other' && frame.payload?.state === 'final',
    );
    await mine.waitForEvent((frame) => frame.event === 'session.run' && frame.payload?.state === 'ended');

    // Its own run's every event; of the other run, the summary only.
    expect(runsIn(mine.events, 'agent')).toEqual(['run-mine']);
    expect(runsIn(mine.events, 'chat')).toEqual(['run-mine']);
    expect(summaries(mine.events)).toEqual([
      'agent:main:other run-other started',
      'agent:main:other run-other ended ok',
    ]);
    expect(runsIn(other.events, 'agent')).toEqual(['run-other']);
    expect(summaries(other.events)).toEqual([
      'agent:main:mine run-mine started',
      'agent:main:mine run-mine ended ok',
    ]);
    // Without the capability: both runs' events, no summaries.
    expect(runsIn(everything.events, 'agent')).toEqual(['run-mine', 'run-other']);
    expect(runsIn(everything.events, 'chat')).toEqual(['run-mine', 'run-other']);
    expect(summaries(everything.events)).toEqual([]);
    // hello-ok names the summary event.
    const { client, hello } = await connectClient(harness.gateway.url, {
      token: harness.gateway.token,
      caps: scoped,
    });
    expect(hello.payload?.features).toMatchObject({ events: expect.arrayContaining(['session.run']) });
    client.close();
  });

  it('reading a session with chat.history follows it: its later runs stream in full, from other connections too', async () => {
    const harness = await startTestGateway({ model: { fallback: 'echo' } });
    running.push(harness);
    const viewer = await harness.connect({ caps: scoped });
    const writer = await harness.connect({ caps: scoped });
    await viewer.request('chat.history', { sessionKey: 'agent:main:shared' });
    await writer.requestFinal('agent', {
      message: 'hello',
      sessionKey: 'agent:main:shared',
      idempotencyKey: 'run-shared',
    });
    await viewer.waitForEvent(
      (frame) =>
        frame.event === 'chat' && frame.payload?.runId === 'run-shared' && frame.payload?.state === 'final',
    );
    expect(runsIn(viewer.events, 'agent')).toEqual(['run-shared']);
    expect(summaries(viewer.events)).toEqual([]);
  });
});
