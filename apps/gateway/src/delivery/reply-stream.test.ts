import { describe, expect, it } from 'vitest';
import { parseFenceSpans } from './fences.ts';
import { createManualClock } from './manual-clock.test-support.ts';
import { createReplyStream, type ReplyStream, type ReplyStreamOptions } from './reply-stream.ts';
import type { DeliveryEvent, DeliveryPayload } from './types.ts';

function harness(options: Partial<ReplyStreamOptions> = {}) {
  const clock = createManualClock();
  const sent: DeliveryPayload[] = [];
  const events: DeliveryEvent[] = [];
  const stream = createReplyStream({
    send: (payload) => {
      sent.push(payload);
    },
    timers: clock,
    now: clock.now,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { clock, sent, events, stream, texts: () => sent.map((payload) => payload.text) };
}

function streamText(stream: ReplyStream, text: string, size = 20): void {
  for (let index = 0; index < text.length; index += size) stream.onTextDelta(text.slice(index, index + size));
}

function longReplyWithCode(): string {
  const prose = (label: string): string =>
    Array.from({ length: 8 }, (_, index) => `${label} point ${index} is worth a sentence of its own.`).join(
      ' ',
    );
  const code = Array.from({ length: 60 }, (_, index) => `    result.push(transform(rows[${index}]));`).join(
    '\n',
  );
  return `${prose('Opening')}\n\n\`\`\`js\n${code}\n\`\`\`\n\n${prose('Closing')}\n\n${prose('Summary')}`;
}

const streamingOn = { mode: 'text_end', chunk: { minChars: 200, maxChars: 600 } } as const;

describe('createReplyStream: block streaming', () => {
  it('streams a long reply with code to Discord within 2,000 characters and 17 lines, fences intact, in order', async () => {
    const { stream, sent, texts } = harness({
      channel: { textChunkLimit: 2000, maxLinesPerMessage: 17 },
      streaming: streamingOn,
    });
    const reply = longReplyWithCode();
    stream.onMessageStart();
    streamText(stream, reply);
    stream.onTextEnd(reply);
    stream.onMessageEnd(reply);
    const summary = await stream.onRunEnd();
    expect(sent.length).toBeGreaterThan(3);
    expect(sent.every((payload) => payload.kind === 'block')).toBe(true);
    for (const text of texts()) {
      expect(text.length).toBeLessThanOrEqual(2000);
      expect(text.split('\n').length).toBeLessThanOrEqual(17);
      expect(parseFenceSpans(text).every((span) => span.closeStart >= 0)).toBe(true);
    }
    const squash = (value: string): string => value.replace(/```js\n|\n?```/g, '').replace(/\s+/g, '');
    expect(squash(texts().join(''))).toBe(squash(reply));
    expect(summary.blocksSent).toBe(sent.length);
    expect(summary.finalsSent).toBe(0);
    expect(summary.suppressed['already-streamed']).toBe(1);
  });

  it('flushes text written before a tool call and delivers it before the tool runs', async () => {
    const { stream, texts } = harness({ streaming: streamingOn });
    stream.onMessageStart();
    stream.onTextDelta('Let me look that up.');
    await stream.onToolStart({ toolCallId: 't1', toolName: 'web_fetch' });
    expect(texts()).toEqual(['Let me look that up.']);
    stream.onMessageEnd('Let me look that up.');
    stream.onMessageStart();
    stream.onTextDelta('Found it: 42.');
    stream.onMessageEnd();
    await stream.onRunEnd();
    expect(texts()).toEqual(['Let me look that up.', 'Found it: 42.']);
  });

  it('never delivers a think block spanning three deltas', async () => {
    const { stream, texts } = harness({ streaming: streamingOn });
    stream.onMessageStart();
    stream.onTextDelta('Sure. <thi');
    stream.onTextDelta('nk>The user wants the capital; it is Paris, obviously');
    stream.onTextDelta('.</think> The capital of France is Paris.');
    stream.onTextEnd();
    stream.onMessageEnd();
    await stream.onRunEnd();
    expect(texts()).toEqual(['Sure.  The capital of France is Paris.']);
  });

  it('treats text_end repeating the full content and late end events as already seen', async () => {
    const { stream, texts } = harness({ streaming: streamingOn });
    stream.onMessageStart();
    stream.onTextStart();
    stream.onTextDelta('Hello ');
    stream.onTextDelta('world');
    stream.onTextEnd('Hello world!'); // only "!" is new
    stream.onTextEnd('Hello world!'); // repeated end
    stream.onMessageEnd('Hello world!');
    stream.onMessageEnd('Hello world!'); // late duplicate
    stream.onTextEnd('Hello world!'); // late end after the message
    await stream.onRunEnd();
    expect(texts()).toEqual(['Hello world!']);
  });

  it('sends the full final text once when the provider streamed no text at all', async () => {
    const { stream, texts } = harness({ streaming: streamingOn });
    stream.onMessageStart();
    stream.onMessageEnd('Answer delivered without deltas.');
    await stream.onRunEnd();
    expect(texts()).toEqual(['Answer delivered without deltas.']);
  });

  it('message_end mode buffers the whole message and sends it at its end', async () => {
    const { stream, texts } = harness({
      streaming: { mode: 'message_end', chunk: { minChars: 5, maxChars: 100 } },
    });
    stream.onMessageStart();
    streamText(stream, 'First paragraph of the answer.\n\nSecond paragraph of it.', 5);
    stream.onTextEnd();
    expect(texts()).toEqual([]);
    stream.onMessageEnd();
    await stream.onRunEnd();
    expect(texts()).toEqual(['First paragraph of the answer.\n\nSecond paragraph of it.']);
  });

  it('coalesces small blocks on the idle timer of the injected clock', async () => {
    const { stream, texts, clock } = harness({
      streaming: {
        mode: 'text_end',
        chunk: { minChars: 10, maxChars: 200 },
        coalesce: { minChars: 30, idleMs: 1000 },
      },
    });
    stream.onMessageStart();
    stream.onTextDelta('First short block.');
    stream.onTextEnd();
    await clock.advance(500);
    stream.onTextStart();
    stream.onTextDelta('Second short block.');
    stream.onTextEnd();
    await clock.advance(999);
    expect(texts()).toEqual([]);
    await clock.advance(1);
    expect(texts()).toEqual(['First short block.\n\nSecond short block.']);
    stream.onMessageEnd();
    await stream.onRunEnd();
    expect(texts()).toHaveLength(1);
  });

  it('after a send timeout skips the remaining blocks, then sends the finals not fully streamed', async () => {
    const clock = createManualClock();
    const sent: string[] = [];
    let calls = 0;
    const stream = createReplyStream({
      timers: clock,
      now: clock.now,
      sendTimeoutMs: 1000,
      streaming: { mode: 'text_end', chunk: { minChars: 10, maxChars: 25 }, coalesce: false },
      send: (payload) => {
        calls++;
        if (calls === 2) return new Promise<void>(() => {}); // the second send hangs
        sent.push(payload.text);
        return undefined;
      },
    });
    stream.onMessageStart();
    stream.onTextDelta('Block one is here.\n\nBlock two is here.\n\nBlock three is here.\n\nBlock four.');
    stream.onTextEnd();
    stream.onMessageEnd();
    const summaryPromise = stream.onRunEnd();
    await clock.advance(1000);
    const summary = await summaryPromise;
    expect(summary.pipelineAborted).toBe(true);
    expect(summary.timedOut).toBe(1);
    expect(summary.suppressed['pipeline-aborted']).toBe(2);
    // Block one went out; blocks after the hung one were skipped, never sent out of order;
    // the message was not fully streamed, so its final text is sent once (nothing lost).
    expect(sent[0]).toBe('Block one is here.');
    expect(sent.slice(1)).toEqual([
      'Block one is here.\n\nBlock two is here.\n\nBlock three is here.\n\nBlock four.',
    ]);
    expect(summary.finalsSent).toBe(1);
  });

  it('drops undelivered text when the run is aborted', async () => {
    const { stream, texts } = harness({ streaming: streamingOn });
    stream.onMessageStart();
    stream.onTextDelta('Half an answer that the user stopped');
    const summary = await stream.onRunEnd({ aborted: true });
    expect(texts()).toEqual([]);
    expect(summary.runAborted).toBe(true);
    expect(summary.suppressed['run-aborted']).toBe(1);
    stream.onTextDelta('late text');
    expect(await stream.onRunEnd()).toBe(summary);
  });
});

describe('createReplyStream: NO_REPLY', () => {
  it('a whole NO_REPLY reply sends nothing (finals mode)', async () => {
    const { stream, sent } = harness();
    stream.onMessageStart();
    stream.onTextDelta('NO_REPLY');
    stream.onMessageEnd('NO_REPLY');
    const summary = await stream.onRunEnd();
    expect(sent).toEqual([]);
    expect(summary.silent).toBe(true);
    expect(summary.suppressed.silent).toBe(1);
  });

  it('a NO_REPLY streamed in fragments, with tool flushes and text_end, sends nothing', async () => {
    for (const fragments of [
      ['N', 'O', '_', 'R', 'E', 'P', 'L', 'Y'],
      ['NO_', 'REPLY\n'],
      ['{"action": ', '"NO_REPLY"}'],
    ]) {
      const { stream, sent } = harness({
        streaming: { mode: 'text_end', chunk: { minChars: 1, maxChars: 50 } },
      });
      stream.onMessageStart();
      for (const fragment of fragments) stream.onTextDelta(fragment);
      stream.onTextEnd();
      await stream.onToolStart({ toolCallId: 't', toolName: 'noop' });
      stream.onMessageEnd(fragments.join(''));
      const summary = await stream.onRunEnd();
      expect(sent).toEqual([]);
      expect(summary.silent).toBe(true);
    }
  });

  it('a NO_REPLY behind a stripped think block is still silent', async () => {
    const { stream, sent } = harness({ streaming: streamingOn });
    stream.onMessageStart();
    streamText(stream, '<think>Nothing to add here.</think>\nNO_REPLY', 4);
    stream.onMessageEnd();
    expect((await stream.onRunEnd()).silent).toBe(true);
    expect(sent).toEqual([]);
  });

  it('a real answer ending in NO_REPLY is delivered without the token (streaming and finals)', async () => {
    for (const streaming of [streamingOn, undefined]) {
      const { stream, texts } = harness(streaming === undefined ? {} : { streaming });
      stream.onMessageStart();
      streamText(stream, 'The backup completed successfully. NO_REPLY', 3);
      stream.onTextEnd();
      stream.onMessageEnd();
      const summary = await stream.onRunEnd();
      expect(texts()).toEqual(['The backup completed successfully.']);
      expect(summary.silent).toBe(false);
    }
  });

  it('a run expecting silence delivers nothing', async () => {
    const { stream, sent } = harness({ expectSilence: true, streaming: streamingOn });
    stream.onMessageStart();
    stream.onTextDelta('Memory flushed to disk.');
    stream.onMessageEnd();
    const summary = await stream.onRunEnd();
    expect(sent).toEqual([]);
    expect(summary.silent).toBe(true);
    expect(summary.suppressed['expected-silence']).toBe(1);
  });
});

describe('createReplyStream: messaging-tool dedupe', () => {
  function sendWithTool(
    stream: ReplyStream,
    succeeded: boolean,
    target?: { channel: string; to: string },
  ): void {
    stream.onMessageStart();
    stream.onTextDelta('Sending it now.');
    void stream.onToolStart({ toolCallId: 'm1', toolName: 'message' });
    stream.onMessageToolSend({ toolCallId: 'm1', text: 'The standup moved to 10:30 tomorrow.', target });
    stream.onToolEnd({ toolCallId: 'm1', toolName: 'message', isError: !succeeded });
    stream.onMessageEnd();
    stream.onMessageStart();
    stream.onTextDelta('The standup moved to 10:30 tomorrow. ✅');
    stream.onMessageEnd();
  }

  it('suppresses a streamed block repeating the committed tool text', async () => {
    const { stream, texts } = harness({ streaming: streamingOn });
    sendWithTool(stream, true);
    const summary = await stream.onRunEnd();
    expect(texts()).toEqual(['Sending it now.']);
    expect(summary.suppressed['messaging-tool-text']).toBe(1);
  });

  it('does not suppress anything when the tool send failed', async () => {
    const { stream, texts } = harness({ streaming: streamingOn });
    sendWithTool(stream, false);
    await stream.onRunEnd();
    expect(texts()).toEqual(['Sending it now.', 'The standup moved to 10:30 tomorrow. ✅']);
  });

  it('drops every final after a send to the same conversation, but not after a cross-target send', async () => {
    const origin = { channel: 'telegram', to: '42' };
    const same = harness({ origin });
    sendWithTool(same.stream, true, { channel: 'telegram', to: '42' });
    const sameSummary = await same.stream.onRunEnd();
    expect(same.texts()).toEqual([]);
    expect(sameSummary.suppressed['messaging-tool-same-origin']).toBe(2);

    const elsewhere = harness({ origin });
    sendWithTool(elsewhere.stream, true, { channel: 'slack', to: 'C9' });
    await elsewhere.stream.onRunEnd();
    expect(elsewhere.texts()).toEqual(['Sending it now.', 'The standup moved to 10:30 tomorrow. ✅']);
  });
});

describe('createReplyStream: finals and options', () => {
  it('with streaming off sends each message text after the run, chunked at the channel limit', async () => {
    const { stream, sent } = harness({ channel: { textChunkLimit: 350 } });
    stream.onMessageStart();
    streamText(stream, 'Checking the logs.');
    stream.onMessageEnd();
    stream.onMessageStart();
    const long = Array.from({ length: 20 }, (_, index) => `Line ${index} of the report is here.`).join('\n');
    streamText(stream, long);
    stream.onMessageEnd();
    expect(sent).toEqual([]);
    const summary = await stream.onRunEnd();
    expect(sent[0]).toEqual({ text: 'Checking the logs.', kind: 'final' });
    expect(sent.length).toBeGreaterThan(2);
    expect(sent.every((payload) => payload.kind === 'final' && payload.text.length <= 350)).toBe(true);
    expect(summary.finalsSent).toBe(sent.length);
  });

  it('enforced <final> mode delivers only the tagged answer', async () => {
    const { stream, texts } = harness({ enforceFinalTag: true, streaming: streamingOn });
    stream.onMessageStart();
    streamText(stream, 'I should greet them warmly. <final>Hello! How can I help?</final>', 7);
    stream.onMessageEnd();
    await stream.onRunEnd();
    expect(texts()).toEqual(['Hello! How can I help?']);
  });

  it('threads every payload to replyToId', async () => {
    const { stream, sent } = harness({ replyToId: 'msg-7' });
    stream.onMessageStart();
    stream.onTextDelta('Reply.');
    stream.onMessageEnd();
    await stream.onRunEnd();
    expect(sent).toEqual([{ text: 'Reply.', kind: 'final', replyToId: 'msg-7' }]);
  });

  it('sends a tool-error notice when a tool failed and nothing else was delivered', async () => {
    const { stream, texts } = harness();
    stream.onMessageStart();
    await stream.onToolStart({ toolCallId: 'x', toolName: 'web_fetch' });
    stream.onToolEnd({ toolCallId: 'x', toolName: 'web_fetch', isError: true, errorMessage: 'HTTP 503' });
    stream.onMessageEnd();
    await stream.onRunEnd();
    expect(texts()).toEqual(['⚠️ The web_fetch tool failed: HTTP 503']);

    const quiet = harness({ toolErrorFallback: false });
    quiet.stream.onToolEnd({ toolCallId: 'x', isError: true });
    await quiet.stream.onRunEnd();
    expect(quiet.texts()).toEqual([]);
  });

  it('routes the event union through dispatch', async () => {
    const { stream, texts } = harness({ streaming: streamingOn });
    stream.dispatch({ type: 'message_start' });
    stream.dispatch({ type: 'text_start' });
    stream.dispatch({ type: 'text_delta', delta: 'Dispatched ' });
    stream.dispatch({ type: 'text_delta', delta: 'text.' });
    await stream.dispatch({ type: 'tool_start', toolCallId: 't', toolName: 'ls' });
    stream.dispatch({ type: 'tool_end', toolCallId: 't', isError: false });
    stream.dispatch({ type: 'message_end', text: 'Dispatched text.' });
    await stream.onRunEnd();
    expect(texts()).toEqual(['Dispatched text.']);
  });

  it('reports a hook cancellation and a failing send in the summary', async () => {
    let count = 0;
    const stream = createReplyStream({
      streaming: { mode: 'text_end', chunk: { minChars: 5, maxChars: 30 }, coalesce: false },
      send: () => {
        count++;
        if (count === 1) return { cancelled: true, reason: 'message_sending hook' };
        throw new Error('platform down');
      },
    });
    stream.onMessageStart();
    stream.onTextDelta('First block here.\n\nSecond block here.');
    stream.onMessageEnd();
    const summary = await stream.onRunEnd();
    expect(summary.cancelled).toBe(1);
    expect(summary.failed).toBe(1);
    expect(summary.sent).toBe(0);
  });

  it('rejects missing send and bad streaming options with the option path', () => {
    expect(() => createReplyStream({} as ReplyStreamOptions)).toThrow(/send/);
    expect(() =>
      createReplyStream({ send: () => undefined, streaming: { mode: 'always' as 'off' } }),
    ).toThrow(/streaming\.mode/);
  });
});
