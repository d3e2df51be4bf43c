/**
 * The linking QR code for the terminal: encoded by `qrcode` (a maintained encoder; see decision
 * 0012), drawn here with half-block characters, two modules per character.
 */
import QRCode from 'qrcode';

/** A QR code's modules: `modules[y][x]` is true for a dark module. */
export interface QrCode {
  readonly size: number;
  readonly modules: readonly (readonly boolean[])[];
}

/** Encodes `text` (Baileys' linking string) at error-correction level L, the smallest code. */
export function encodeQr(text: string): QrCode {
  const matrix = QRCode.create(text, { errorCorrectionLevel: 'L' }).modules;
  const modules: boolean[][] = [];
  for (let y = 0; y < matrix.size; y += 1) {
    const row: boolean[] = [];
    for (let x = 0; x < matrix.size; x += 1) row.push(matrix.get(y, x) === 1);
    modules.push(row);
  }
  return { size: matrix.size, modules };
}

/**
 * Renders a QR code for a terminal with half-block characters, two modules per character,
 * with a quiet zone. Light modules are drawn (for terminals with a dark background).
 */
export function renderQrForTerminal(code: QrCode, quietZone = 2): string {
  const size = code.size + quietZone * 2;
  const dark = (x: number, y: number) => {
    const moduleX = x - quietZone;
    const moduleY = y - quietZone;
    return (
      moduleX >= 0 &&
      moduleY >= 0 &&
      moduleX < code.size &&
      moduleY < code.size &&
      code.modules[moduleY]![moduleX] === true
    );
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
