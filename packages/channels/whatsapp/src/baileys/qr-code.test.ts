import jsQRModule from 'jsqr';
import { describe, expect, it } from 'vitest';
import { encodeQr, renderQrForTerminal } from './qr-code.ts';

/** Reads a module matrix (true = dark) with an independent decoder (jsQR), as a phone camera would. */
function scan(dark: (x: number, y: number) => boolean, size: number): string | undefined {
  const scale = 4;
  const pixels = size * scale;
  const data = new Uint8ClampedArray(pixels * pixels * 4);
  for (let y = 0; y < pixels; y += 1) {
    for (let x = 0; x < pixels; x += 1) {
      const value = dark(Math.floor(x / scale), Math.floor(y / scale)) ? 0 : 255;
      const offset = (y * pixels + x) * 4;
      data[offset] = value;
      data[offset + 1] = value;
      data[offset + 2] = value;
      data[offset + 3] = 255;
    }
  }
  // jsqr is a UMD bundle: its ESM default is the module, whose `default` is the decoder.
  return jsQRModule.default(data, pixels, pixels)?.data;
}

/** The terminal drawing back to modules: each character is two rows; drawn halves are light. */
function fromTerminal(rendered: string): { dark: (x: number, y: number) => boolean; size: number } {
  const lines = rendered.split('\n').map((line) => [...line]);
  const size = lines[0]!.length;
  return {
    size,
    dark: (x, y) => {
      const character = lines[Math.floor(y / 2)]?.[x] ?? '█';
      const lightTop = character === '█' || character === '▀';
      const lightBottom = character === '█' || character === '▄';
      return y % 2 === 0 ? !lightTop : !lightBottom;
    },
  };
}

const linkingPayload =
  '2@Kp0dC8wTn4Gkq7N1mJvX3yR9sQe2LfHb6uZa5cWi0oPt+Dg/AhEkMnYrSx4BjF7lUqTwVz1IeOcKa,' +
  'eXJhbmRvbW5vaXNla2V5YmFzZTY0c3RyaW5nPT0=,aWRlbnRpdHlrZXliYXNlNjRzdHJpbmdoZXJlMTI=,YWR2c2VjcmV0YmFzZTY0c3RyaW5nPT0=,1';

describe('linking QR code', () => {
  it('encodes a WhatsApp linking payload that an independent decoder reads back', () => {
    const code = encodeQr(linkingPayload);
    expect(code.modules).toHaveLength(code.size);
    expect(scan((x, y) => code.modules[y]![x] === true, code.size)).toBe(linkingPayload);
  });

  it('what the terminal shows scans back to the payload (quiet zone included)', () => {
    const drawn = fromTerminal(renderQrForTerminal(encodeQr(linkingPayload), 2));
    expect(scan(drawn.dark, drawn.size)).toBe(linkingPayload);
  });

  it('encodes short and long texts', () => {
    for (const length of [1, 40, 250, 600]) {
      const text = Array.from({ length }, (_, index) => String.fromCharCode(33 + ((index * 7) % 90))).join(
        '',
      );
      const code = encodeQr(text);
      expect(
        scan((x, y) => code.modules[y]![x] === true, code.size),
        `${length} characters`,
      ).toBe(text);
    }
  });

  it('renders two rows per line with a quiet zone', () => {
    const code = encodeQr('hello');
    const lines = renderQrForTerminal(code, 2).split('\n');
    expect(lines).toHaveLength(Math.ceil((code.size + 4) / 2));
    for (const line of lines) expect([...line]).toHaveLength(code.size + 4);
    expect(lines[0]).toMatch(/^█+$/);
  });
});
