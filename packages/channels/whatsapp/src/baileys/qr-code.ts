// A small QR code encoder (ISO/IEC 18004, byte mode, error correction L or M) and a
// terminal renderer, so the linking QR code can be printed without another dependency.

/** A QR code: `size` × `size` modules, `true` = dark. */
export interface QrCode {
  readonly version: number;
  readonly size: number;
  readonly mask: number;
  readonly errorCorrection: QrErrorCorrection;
  readonly modules: readonly (readonly boolean[])[];
}

export type QrErrorCorrection = 'L' | 'M';

// Error correction codewords per block and number of blocks, per version (index 0 unused).
const eccPerBlock: Readonly<Record<QrErrorCorrection, readonly number[]>> = {
  L: [
    -1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28,
    30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
  ],
  M: [
    -1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28,
    28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  ],
};
const blockCount: Readonly<Record<QrErrorCorrection, readonly number[]>> = {
  L: [
    -1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16,
    17, 18, 19, 19, 20, 21, 22, 24, 25,
  ],
  M: [
    -1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28,
    29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
  ],
};
const formatLevelBits: Readonly<Record<QrErrorCorrection, number>> = { L: 1, M: 0 };

/** How many modules of a version carry data and error correction (not function patterns). */
export function rawDataModules(version: number): number {
  let result = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const alignments = Math.floor(version / 7) + 2;
    result -= (25 * alignments - 10) * alignments - 55;
    if (version >= 7) result -= 36;
  }
  return result;
}

/** The number of data codewords (bytes) a version and level hold. */
export function dataCodewords(version: number, level: QrErrorCorrection): number {
  return Math.floor(rawDataModules(version) / 8) - eccPerBlock[level][version]! * blockCount[level][version]!;
}

/** The centres of the alignment patterns along each axis. */
export function alignmentPositions(version: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const size = version * 4 + 17;
  const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const positions = [6];
  for (let position = size - 7; positions.length < count; position -= step) positions.splice(1, 0, position);
  return positions;
}

// GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
function multiply(x: number, y: number): number {
  let product = 0;
  for (let bit = 7; bit >= 0; bit -= 1) {
    product = (product << 1) ^ ((product >>> 7) * 0x11d);
    product ^= ((y >>> bit) & 1) * x;
  }
  return product & 0xff;
}

function generatorPolynomial(degree: number): number[] {
  const result = new Array<number>(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let index = 0; index < degree; index += 1) {
    for (let position = 0; position < degree; position += 1) {
      result[position] = multiply(result[position]!, root);
      if (position + 1 < degree) result[position] = result[position]! ^ result[position + 1]!;
    }
    root = multiply(root, 0x02);
  }
  return result;
}

/** The Reed–Solomon error correction codewords of `data`. */
export function reedSolomon(data: readonly number[], degree: number): number[] {
  const divisor = generatorPolynomial(degree);
  const remainder = new Array<number>(degree).fill(0);
  for (const byte of data) {
    const factor = byte ^ remainder.shift()!;
    remainder.push(0);
    for (let index = 0; index < degree; index += 1)
      remainder[index] = remainder[index]! ^ multiply(divisor[index]!, factor);
  }
  return remainder;
}

/** The 15 format bits (error correction level and mask, BCH-protected, XOR-masked). */
export function formatBits(level: QrErrorCorrection, mask: number): number {
  const data = (formatLevelBits[level] << 3) | mask;
  let remainder = data;
  for (let index = 0; index < 10; index += 1) remainder = (remainder << 1) ^ ((remainder >>> 9) * 0x537);
  return ((data << 10) | remainder) ^ 0x5412;
}

/** The 18 version bits (versions 7 and up). */
export function versionBits(version: number): number {
  let remainder = version;
  for (let index = 0; index < 12; index += 1) remainder = (remainder << 1) ^ ((remainder >>> 11) * 0x1f25);
  return (version << 12) | remainder;
}

const masks: ReadonlyArray<(x: number, y: number) => boolean> = [
  (x, y) => (x + y) % 2 === 0,
  (_x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

/** The mask function `mask` (0–7): true where a data module is inverted. */
export function maskApplies(mask: number, x: number, y: number): boolean {
  return masks[mask]!(x, y);
}

/** How a version's codewords split into blocks: data bytes per block and the ECC length. */
export function blockLayout(
  version: number,
  level: QrErrorCorrection,
): { dataLengths: number[]; eccLength: number } {
  const blocks = blockCount[level][version]!;
  const eccLength = eccPerBlock[level][version]!;
  const raw = Math.floor(rawDataModules(version) / 8);
  const shortBlocks = blocks - (raw % blocks);
  const shortLength = Math.floor(raw / blocks);
  const dataLengths = Array.from(
    { length: blocks },
    (_, block) => shortLength - eccLength + (block < shortBlocks ? 0 : 1),
  );
  return { dataLengths, eccLength };
}

/** Which modules of a version belong to function patterns (finders, timing, alignment, format, version). */
export function functionModules(version: number): boolean[][] {
  return drawFunctionPatterns(version, version * 4 + 17).reserved;
}

/** Encodes `text` (UTF-8, byte mode) in the smallest version that holds it. */
export function encodeQr(text: string, level: QrErrorCorrection = 'L'): QrCode {
  const bytes = [...new TextEncoder().encode(text)];
  let version = 1;
  for (; version <= 40; version += 1) {
    const countBits = version < 10 ? 8 : 16;
    if (4 + countBits + bytes.length * 8 <= dataCodewords(version, level) * 8) break;
  }
  if (version > 40) throw new RangeError(`${bytes.length} bytes do not fit in a QR code`);
  const capacity = dataCodewords(version, level);

  // Mode indicator, character count, data, terminator, padding.
  const bits: number[] = [];
  const append = (value: number, length: number) => {
    for (let bit = length - 1; bit >= 0; bit -= 1) bits.push((value >>> bit) & 1);
  };
  append(0b0100, 4);
  append(bytes.length, version < 10 ? 8 : 16);
  for (const byte of bytes) append(byte, 8);
  append(0, Math.min(4, capacity * 8 - bits.length));
  append(0, (8 - (bits.length % 8)) % 8);
  const data: number[] = [];
  for (let index = 0; index < bits.length; index += 8) {
    data.push(bits.slice(index, index + 8).reduce((byte, bit) => (byte << 1) | bit, 0));
  }
  for (let pad = 0xec; data.length < capacity; pad ^= 0xec ^ 0x11) data.push(pad);

  const codewords = interleave(data, version, level);
  const size = version * 4 + 17;
  const base = drawFunctionPatterns(version, size);
  placeData(base.modules, base.reserved, codewords, size);

  let best: boolean[][] | undefined;
  let bestMask = 0;
  let bestPenalty = Number.POSITIVE_INFINITY;
  for (let mask = 0; mask < 8; mask += 1) {
    const modules = base.modules.map((row) => [...row]);
    for (let y = 0; y < size; y += 1) {
      for (let x = 0; x < size; x += 1) {
        if (!base.reserved[y]![x] && maskApplies(mask, x, y)) modules[y]![x] = !modules[y]![x];
      }
    }
    drawFormat(modules, size, formatBits(level, mask));
    const score = penalty(modules, size);
    if (score < bestPenalty) {
      bestPenalty = score;
      best = modules;
      bestMask = mask;
    }
  }
  return { version, size, mask: bestMask, errorCorrection: level, modules: best! };
}

/** Splits data into blocks, adds error correction, and interleaves them. */
function interleave(data: readonly number[], version: number, level: QrErrorCorrection): number[] {
  const blocks = blockCount[level][version]!;
  const eccLength = eccPerBlock[level][version]!;
  const raw = Math.floor(rawDataModules(version) / 8);
  const shortBlocks = blocks - (raw % blocks);
  const shortLength = Math.floor(raw / blocks);
  const dataBlocks: number[][] = [];
  const eccBlocks: number[][] = [];
  let offset = 0;
  for (let block = 0; block < blocks; block += 1) {
    const length = shortLength - eccLength + (block < shortBlocks ? 0 : 1);
    const slice = data.slice(offset, offset + length);
    offset += length;
    dataBlocks.push(slice);
    eccBlocks.push(reedSolomon(slice, eccLength));
  }
  const result: number[] = [];
  for (let index = 0; index <= shortLength - eccLength; index += 1) {
    for (const block of dataBlocks) if (index < block.length) result.push(block[index]!);
  }
  for (let index = 0; index < eccLength; index += 1) {
    for (const block of eccBlocks) result.push(block[index]!);
  }
  return result;
}

function drawFunctionPatterns(
  version: number,
  size: number,
): { modules: boolean[][]; reserved: boolean[][] } {
  const modules = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  const reserved = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  const set = (x: number, y: number, dark: boolean) => {
    modules[y]![x] = dark;
    reserved[y]![x] = true;
  };
  for (let index = 0; index < size; index += 1) {
    set(6, index, index % 2 === 0);
    set(index, 6, index % 2 === 0);
  }
  for (const [cx, cy] of [
    [3, 3],
    [size - 4, 3],
    [3, size - 4],
  ] as const) {
    for (let dy = -4; dy <= 4; dy += 1) {
      for (let dx = -4; dx <= 4; dx += 1) {
        const x = cx + dx;
        const y = cy + dy;
        if (x < 0 || y < 0 || x >= size || y >= size) continue;
        const distance = Math.max(Math.abs(dx), Math.abs(dy));
        set(x, y, distance !== 2 && distance !== 4);
      }
    }
  }
  const positions = alignmentPositions(version);
  for (const [i, cx] of positions.entries()) {
    for (const [j, cy] of positions.entries()) {
      const corner =
        (i === 0 && j === 0) ||
        (i === 0 && j === positions.length - 1) ||
        (i === positions.length - 1 && j === 0);
      if (corner) continue;
      for (let dy = -2; dy <= 2; dy += 1) {
        for (let dx = -2; dx <= 2; dx += 1) set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }
  }
  // Reserve the format areas (drawn per mask) and the dark module.
  drawFormat(modules, size, 0, reserved);
  if (version >= 7) {
    const bits = versionBits(version);
    for (let index = 0; index < 18; index += 1) {
      const dark = ((bits >>> index) & 1) === 1;
      const a = size - 11 + (index % 3);
      const b = Math.floor(index / 3);
      set(a, b, dark);
      set(b, a, dark);
    }
  }
  return { modules, reserved };
}

/** Draws the two copies of the format bits (and the dark module); marks them reserved when asked. */
function drawFormat(modules: boolean[][], size: number, bits: number, reserved?: boolean[][]): void {
  const set = (x: number, y: number, dark: boolean) => {
    modules[y]![x] = dark;
    if (reserved !== undefined) reserved[y]![x] = true;
  };
  const bit = (index: number) => ((bits >>> index) & 1) === 1;
  for (let index = 0; index <= 5; index += 1) set(8, index, bit(index));
  set(8, 7, bit(6));
  set(8, 8, bit(7));
  set(7, 8, bit(8));
  for (let index = 9; index < 15; index += 1) set(14 - index, 8, bit(index));
  for (let index = 0; index < 8; index += 1) set(size - 1 - index, 8, bit(index));
  for (let index = 8; index < 15; index += 1) set(8, size - 15 + index, bit(index));
  set(8, size - 8, true);
}

/** The order data modules are filled in: two-column zigzag from the bottom right. */
export function dataModuleOrder(
  reserved: readonly (readonly boolean[])[],
  size: number,
): Array<[number, number]> {
  const order: Array<[number, number]> = [];
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vertical = 0; vertical < size; vertical += 1) {
      for (let column = 0; column < 2; column += 1) {
        const x = right - column;
        const upward = ((right + 1) & 2) === 0;
        const y = upward ? size - 1 - vertical : vertical;
        if (!reserved[y]![x]) order.push([x, y]);
      }
    }
  }
  return order;
}

function placeData(
  modules: boolean[][],
  reserved: boolean[][],
  codewords: readonly number[],
  size: number,
): void {
  let index = 0;
  for (const [x, y] of dataModuleOrder(reserved, size)) {
    if (index < codewords.length * 8) {
      modules[y]![x] = ((codewords[index >>> 3]! >>> (7 - (index & 7))) & 1) === 1;
      index += 1;
    }
  }
}

/** The standard mask penalty (rules 1–4); lower scans better. */
function penalty(modules: readonly (readonly boolean[])[], size: number): number {
  let score = 0;
  const line = (get: (index: number) => boolean) => {
    let run = 1;
    for (let index = 1; index <= size; index += 1) {
      if (index < size && get(index) === get(index - 1)) run += 1;
      else {
        if (run >= 5) score += 3 + (run - 5);
        run = 1;
      }
    }
    const pattern = [true, false, true, true, true, false, true];
    for (let index = 0; index + 7 <= size; index += 1) {
      if (!pattern.every((dark, offset) => get(index + offset) === dark)) continue;
      const before = index >= 4 && [1, 2, 3, 4].every((offset) => !get(index - offset));
      const after = index + 11 <= size && [7, 8, 9, 10].every((offset) => !get(index + offset));
      if (before || after) score += 40;
    }
  };
  for (let y = 0; y < size; y += 1) line((x) => modules[y]![x]!);
  for (let x = 0; x < size; x += 1) line((y) => modules[y]![x]!);
  let dark = 0;
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      if (modules[y]![x]) dark += 1;
      if (x + 1 < size && y + 1 < size) {
        const color = modules[y]![x];
        if (color === modules[y]![x + 1] && color === modules[y + 1]![x] && color === modules[y + 1]![x + 1])
          score += 3;
      }
    }
  }
  const total = size * size;
  score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
  return score;
}

/**
 * Renders a QR code for a terminal with half-block characters, two modules per character,
 * with a quiet zone. Light modules are drawn (for terminals with a dark background).
 */
export function renderQrForTerminal(code: QrCode, quietZone = 2): string {
  const size = code.size + quietZone * 2;
  const dark = (x: number, y: number) => {
    const mx = x - quietZone;
    const my = y - quietZone;
    return mx >= 0 && my >= 0 && mx < code.size && my < code.size && code.modules[my]![mx] === true;
  };
  const rows: string[] = [];
  for (let y = 0; y < size; y += 2) {
    let row = '';
    for (let x = 0; x < size; x += 1) {
      const top = !dark(x, y);
      const bottom = y + 1 < size ? !dark(x, y + 1) : false;
      row += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    rows.push(row);
  }
  return rows.join('\n');
}
