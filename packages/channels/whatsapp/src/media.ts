// Media sizes and where inbound media is saved: the account's data directory (mode 0600),
// written only when the gateway asks for an admitted message's media (decision 0026).
import { randomBytes } from 'node:crypto';
import { extname, join } from 'node:path';
import { WhatsAppError } from './errors.ts';

const extensions: Readonly<Record<string, string>> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'video/mp4': '.mp4',
  'video/3gpp': '.3gp',
  'audio/ogg': '.ogg',
  'audio/mpeg': '.mp3',
  'audio/mp4': '.m4a',
  'audio/aac': '.aac',
  'audio/amr': '.amr',
  'application/pdf': '.pdf',
  'text/plain': '.txt',
};

/** The file extension for a MIME type (`audio/ogg; codecs=opus` → `.ogg`), or `.bin`. */
function extensionFor(mimeType: string | undefined, fileName?: string): string {
  const fromName = fileName === undefined ? '' : extname(fileName).toLowerCase();
  if (/^\.[a-z0-9]{1,8}$/.test(fromName)) return fromName;
  const base = mimeType?.split(';')[0]?.trim().toLowerCase();
  return (base === undefined ? undefined : extensions[base]) ?? '.bin';
}

/** Throws `WHATSAPP_MEDIA_TOO_LARGE` when `sizeBytes` is over the limit. */
export function checkMediaSize(sizeBytes: number | undefined, maxMb: number, what: string): void {
  if (sizeBytes !== undefined && sizeBytes > maxMb * 1024 * 1024) {
    throw new WhatsAppError(
      'WHATSAPP_MEDIA_TOO_LARGE',
      `${what} is ${(sizeBytes / 1024 / 1024).toFixed(1)} MB, over mediaMaxMb (${maxMb} MB)`,
      { details: { sizeBytes, maxMb } },
    );
  }
}

/** Where an inbound attachment is downloaded to: `<dataDirectory>/media/<message>-<n><ext>`. */
export function inboundMediaPath(
  dataDirectory: string,
  messageId: string,
  index: number,
  mimeType: string | undefined,
  fileName?: string,
): string {
  const safeId = messageId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80) || randomBytes(6).toString('hex');
  return join(dataDirectory, 'media', `${safeId}-${index}${extensionFor(mimeType, fileName)}`);
}

/** The limit in bytes of `mediaMaxMb`. */
export function mediaMaxBytes(maxMb: number): number {
  return Math.floor(maxMb * 1024 * 1024);
}
