import { describe, expect, it } from 'vitest';
import { channelDeliveryDefaults, DEFAULT_TEXT_CHUNK_LIMIT, resolveDeliveryConfig } from './config.ts';

describe('resolveDeliveryConfig', () => {
  it('defaults: streaming off, 4000 limit, chunk 800–1200 paragraph, coalesce 800/1200/1000 ms', () => {
    const config = resolveDeliveryConfig();
    expect(config.mode).toBe('off');
    expect(config.textLimit).toBe(DEFAULT_TEXT_CHUNK_LIMIT);
    expect(config.chunk).toEqual({
      minChars: 800,
      maxChars: 1200,
      breakPreference: 'paragraph',
      flushOnParagraph: false,
    });
    expect(config.coalesce).toEqual({ minChars: 800, maxChars: 1200, idleMs: 1000, joiner: '\n\n' });
    expect(config.humanDelay).toBeUndefined();
  });

  it('clamps the chunker and the coalescer to the channel limit (IRC: 350)', () => {
    const config = resolveDeliveryConfig(channelDeliveryDefaults.irc, { mode: 'text_end' });
    expect(config.textLimit).toBe(350);
    expect(config.chunk.maxChars).toBe(350);
    expect(config.chunk.minChars).toBe(350);
    expect(config.coalesce?.maxChars).toBe(350);
    expect(config.coalesce?.minChars).toBe(350);
  });

  it('caps Telegram at its 4096 hard limit and keeps Discord’s 17-line cap and chat-heavy coalescing', () => {
    expect(
      resolveDeliveryConfig({ ...channelDeliveryDefaults.telegram, textChunkLimit: 9000 }).textLimit,
    ).toBe(4096);
    const discord = resolveDeliveryConfig(channelDeliveryDefaults.discord, {
      mode: 'text_end',
      chunk: { maxChars: 1900, minChars: 1000 },
    });
    expect(discord.textLimit).toBe(2000);
    expect(discord.maxLinesPerMessage).toBe(17);
    expect(discord.coalesce).toEqual({ minChars: 1500, maxChars: 1900, idleMs: 1000, joiner: '\n\n' });
  });

  it('chunkMode newline turns on flushOnParagraph; the joiner follows the break preference', () => {
    const config = resolveDeliveryConfig(
      { chunkMode: 'newline' },
      { chunk: { breakPreference: 'sentence' }, coalesce: { idleMs: 99_999 } },
    );
    expect(config.chunk.flushOnParagraph).toBe(true);
    expect(config.coalesce?.joiner).toBe(' ');
    expect(config.coalesce?.idleMs).toBe(5000);
    expect(resolveDeliveryConfig({}, { coalesce: false }).coalesce).toBeUndefined();
  });

  it('resolves human delay', () => {
    expect(resolveDeliveryConfig({}, { humanDelay: 'natural' }).humanDelay).toEqual({
      minMs: 800,
      maxMs: 2500,
    });
    expect(resolveDeliveryConfig({}, { humanDelay: { minMs: 5, maxMs: 9 } }).humanDelay).toEqual({
      minMs: 5,
      maxMs: 9,
    });
  });

  it('names the offending key path', () => {
    expect(() => resolveDeliveryConfig({ textChunkLimit: -1 })).toThrow(/channel\.textChunkLimit/);
    expect(() => resolveDeliveryConfig({}, { chunk: { maxChars: 1.5 } })).toThrow(
      /streaming\.chunk\.maxChars/,
    );
    expect(() => resolveDeliveryConfig({}, { humanDelay: 'slow' as 'off' })).toThrow(/streaming\.humanDelay/);
    expect(() => resolveDeliveryConfig({ chunkMode: 'words' as 'length' })).toThrow(/channel\.chunkMode/);
  });
});
