import { describe, expect, it } from 'vitest';
import { mapCallResult } from './results.ts';

const identity = { server: 'files', tool: 'read' };
const limits = { maxOutputChars: 1000, maxImageBytes: 100 };
const png = Buffer.alloc(60, 1).toString('base64');

describe('mapCallResult', () => {
  it('keeps text and images in order, and isError', () => {
    const result = mapCallResult(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: png, mimeType: 'image/png' },
          { type: 'text', text: 'second' },
        ],
        isError: true,
      },
      identity,
      limits,
    );
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', mediaType: 'image/png', data: png },
        { type: 'text', text: 'second' },
      ],
      details: { server: 'files', tool: 'read' },
      isError: true,
    });
  });

  it('replaces oversized or unsupported images, audio and binary resources with notes', () => {
    const big = Buffer.alloc(101).toString('base64');
    const result = mapCallResult(
      {
        content: [
          { type: 'image', data: big, mimeType: 'image/png' },
          { type: 'image', data: png, mimeType: 'image/tiff' },
          { type: 'audio', data: png, mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/zip', blob: png } },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } },
          { type: 'resource_link', uri: 'file:///b', name: 'b', description: 'the b file' },
          { type: 'mystery' },
        ],
      },
      identity,
      limits,
    );
    expect(result.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual([
      '[image omitted: 101 bytes is over the 100-byte limit (maxImageBytes)]',
      '[image omitted: type image/tiff is not supported by the model]',
      '[audio omitted: audio/wav, 60 bytes]',
      '[binary resource omitted: file:///a.bin (application/zip, 60 bytes)]',
      '[resource file:///a.txt]\nhello',
      '[resource link] b: file:///b — the b file',
      '[unknown content block omitted: "mystery"]',
    ]);
    expect(result.isError).toBeUndefined();
  });

  it('sends structured content as JSON when there is no text, and keeps it in details', () => {
    const structured = { temperature: 21.5, unit: 'C' };
    const onlyStructured = mapCallResult({ content: [], structuredContent: structured }, identity, limits);
    expect(onlyStructured.content).toEqual([{ type: 'text', text: JSON.stringify(structured, null, 2) }]);
    expect(onlyStructured.details?.structuredContent).toEqual(structured);
    const both = mapCallResult(
      { content: [{ type: 'text', text: '21.5 C' }], structuredContent: structured },
      identity,
      limits,
    );
    expect(both.content).toEqual([{ type: 'text', text: '21.5 C' }]);
    expect(mapCallResult({ content: [] }, identity, limits).content).toEqual([
      { type: 'text', text: '(no output)' },
    ]);
  });

  it('cuts text beyond maxOutputChars and says how much was dropped', () => {
    const result = mapCallResult(
      {
        content: [
          { type: 'text', text: 'a'.repeat(700) },
          { type: 'text', text: 'b'.repeat(700) },
          { type: 'text', text: 'c'.repeat(10) },
        ],
      },
      identity,
      limits,
    );
    expect(result.content).toEqual([
      { type: 'text', text: 'a'.repeat(700) },
      { type: 'text', text: 'b'.repeat(300) },
      { type: 'text', text: '\n[output truncated: 1000 of 1410 characters shown (maxOutputChars 1000)]' },
    ]);
    expect(result.details?.truncated).toEqual({ originalChars: 1410, keptChars: 1000, droppedBlocks: 1 });
  });
});
