import { describe, expect, it } from 'vitest';
import {
  alignmentPositions,
  blockLayout,
  dataCodewords,
  dataModuleOrder,
  encodeQr,
  formatBits,
  functionModules,
  maskApplies,
  type QrCode,
  reedSolomon,
  renderQrForTerminal,
  versionBits,
} from './qr-code.ts';

// An independent GF(256) (log/antilog tables) to check Reed–Solomon codewords by their syndromes.
const exp = new Array<number>(512);
const log = new Array<number>(256);
{
  let value = 1;
  for (let power = 0; power < 255; power += 1) {
    exp[power] = value;
    log[value] = power;
    value <<= 1;
    if (value & 0x100) value ^= 0x11d;
  }
  for (let power = 255; power < 512; power += 1) exp[power] = exp[power - 255]!;
}
const gfMultiply = (a: number, b: number) => (a === 0 || b === 0 ? 0 : exp[log[a]! + log[b]!]!);
function syndromesAreZero(codeword: readonly number[], eccLength: number): boolean {
  for (let root = 0; root < eccLength; root += 1) {
    let sum = 0;
    for (const byte of codeword) sum = gfMultiply(sum, exp[root]!) ^ byte;
    if (sum !== 0) return false;
  }
  return true;
}

/** Reads a QR code back: format bits, unmasking, codewords, error correction check, payload. */
function decode(code: QrCode): { text: string; level: string; mask: number } {
  const { size, modules } = code;
  const version = (size - 17) / 4;
  let format = 0;
  const bit = (x: number, y: number) => (modules[y]![x] ? 1 : 0);
  const formatPositions: Array<[number, number]> = [
    [8, 0],
    [8, 1],
    [8, 2],
    [8, 3],
    [8, 4],
    [8, 5],
    [8, 7],
    [8, 8],
    [7, 8],
    [5, 8],
    [4, 8],
    [3, 8],
    [2, 8],
    [1, 8],
    [0, 8],
  ];
  formatPositions.forEach(([x, y], index) => {
    format |= bit(x, y) << index;
  });
  const candidates = (['L', 'M'] as const).flatMap((level) =>
    Array.from({ length: 8 }, (_, mask) => ({ level, mask, bits: formatBits(level, mask) })),
  );
  const found = candidates.find((candidate) => candidate.bits === format);
  if (found === undefined) throw new Error(`unreadable format bits ${format.toString(2)}`);
  const reserved = functionModules(version);
  const bits: number[] = [];
  for (const [x, y] of dataModuleOrder(reserved, size))
    bits.push(bit(x, y) ^ (maskApplies(found.mask, x, y) ? 1 : 0));
  const codewords: number[] = [];
  for (let index = 0; index + 8 <= bits.length; index += 8) {
    codewords.push(bits.slice(index, index + 8).reduce((byte, value) => (byte << 1) | value, 0));
  }
  const { dataLengths, eccLength } = blockLayout(version, found.level);
  const blocks = dataLengths.map(() => [] as number[]);
  let position = 0;
  const longest = Math.max(...dataLengths);
  for (let index = 0; index < longest; index += 1) {
    dataLengths.forEach((length, block) => {
      if (index < length) blocks[block]!.push(codewords[position++]!);
    });
  }
  const ecc = dataLengths.map(() => [] as number[]);
  for (let index = 0; index < eccLength; index += 1)
    for (const block of ecc) block.push(codewords[position++]!);
  blocks.forEach((block, index) => {
    if (!syndromesAreZero([...block, ...ecc[index]!], eccLength))
      throw new Error(`block ${index} fails its check`);
  });
  const data = blocks.flat();
  const stream = data.flatMap((byte) => Array.from({ length: 8 }, (_, offset) => (byte >> (7 - offset)) & 1));
  const read = (from: number, length: number) =>
    stream.slice(from, from + length).reduce((value, b) => value * 2 + b, 0);
  if (read(0, 4) !== 0b0100) throw new Error('not byte mode');
  const countBits = version < 10 ? 8 : 16;
  const count = read(4, countBits);
  const bytes = Array.from({ length: count }, (_, index) => read(4 + countBits + index * 8, 8));
  return { text: new TextDecoder().decode(Uint8Array.from(bytes)), level: found.level, mask: found.mask };
}

describe('QR code encoder', () => {
  it('matches the standard tables', () => {
    expect(formatBits('L', 0)).toBe(0b111011111000100);
    expect(formatBits('M', 0)).toBe(0b101010000010010);
    expect(versionBits(7)).toBe(0b000111110010010100);
    expect(dataCodewords(1, 'L')).toBe(19);
    expect(dataCodewords(1, 'M')).toBe(16);
    expect(dataCodewords(10, 'L')).toBe(274);
    expect(dataCodewords(40, 'L')).toBe(2956);
    expect(alignmentPositions(1)).toEqual([]);
    expect(alignmentPositions(7)).toEqual([6, 22, 38]);
    expect(alignmentPositions(32)).toEqual([6, 34, 60, 86, 112, 138]);
  });

  it('computes Reed–Solomon codewords (the HELLO WORLD 1-M example)', () => {
    const data = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17];
    expect(reedSolomon(data, 10)).toEqual([196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
  });

  it('round-trips a WhatsApp linking payload through the matrix', () => {
    const payload =
      'https://wa.me/settings/linked_devices#2@Kp0dC8wTn4Gkq7N1mJvX3yR9sQe2LfHb6uZa5cWi0oPt+Dg/AhEkMnYrSx4BjF7lUqTwVz1IeOcKa,' +
      'eXJhbmRvbW5vaXNla2V5YmFzZTY0c3RyaW5nPT0=,aWRlbnRpdHlrZXliYXNlNjRzdHJpbmdoZXJlMTI=,YWR2c2VjcmV0YmFzZTY0c3RyaW5nPT0=,1';
    const code = encodeQr(payload);
    expect(code.version).toBeGreaterThanOrEqual(10);
    expect(decode(code)).toEqual({ text: payload, level: 'L', mask: code.mask });
  });

  it('round-trips short and long texts at both levels, across versions', () => {
    for (const length of [1, 17, 40, 100, 250, 600, 1200]) {
      const text = Array.from({ length }, (_, index) => String.fromCharCode(33 + ((index * 7) % 90))).join(
        '',
      );
      for (const level of ['L', 'M'] as const) {
        const code = encodeQr(text, level);
        expect(decode(code).text, `${length} chars at ${level}`).toBe(text);
      }
    }
  });

  it('draws the finder patterns in three corners', () => {
    const code = encodeQr('hello');
    const ring = (x0: number, y0: number) =>
      [0, 1, 2, 3, 4, 5, 6].every(
        (offset) => code.modules[y0]![x0 + offset] && code.modules[y0 + offset]![x0],
      );
    expect(ring(0, 0)).toBe(true);
    expect(ring(code.size - 7, 0)).toBe(true);
    expect(ring(0, code.size - 7)).toBe(true);
  });

  it('renders two rows per line with a quiet zone', () => {
    const code = encodeQr('hello');
    const lines = renderQrForTerminal(code, 2).split('\n');
    expect(lines).toHaveLength(Math.ceil((code.size + 4) / 2));
    for (const line of lines) expect([...line]).toHaveLength(code.size + 4);
    expect(lines[0]).toMatch(/^█+$/);
  });
});
