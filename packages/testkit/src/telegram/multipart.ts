// A hand-written multipart/form-data parser. grammY writes lenient part headers
// (`content-disposition:form-data;name="photo";filename=a.jpg`: no space, unquoted
// filename) that undici's `Response#formData()` rejects, so the fake parses bodies itself.

/** One part of a multipart body. */
export interface MultipartPart {
  readonly name: string;
  /** Set for file parts. */
  readonly fileName?: string;
  readonly contentType?: string;
  readonly data: Buffer;
}

/** The boundary of a `multipart/form-data` content type, or undefined. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^multipart\/form-data/i.test(contentType)) return undefined;
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

function headerParameter(header: string, name: string): string | undefined {
  const pattern = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, 'i');
  const match = pattern.exec(header);
  if (match === null) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!.trim();
}

/**
 * Splits a multipart body into its parts. Throws an Error naming the problem when the body
 * is not well-formed multipart (no boundary line, a part without a name).
 */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let position = body.indexOf(delimiter);
  if (position === -1) throw new Error('multipart body has no boundary line');
  while (true) {
    position += delimiter.length;
    // "--" after the delimiter closes the body.
    if (body[position] === 0x2d && body[position + 1] === 0x2d) break;
    // Skip the CRLF (or LF) ending the delimiter line.
    if (body[position] === 0x0d) position += 1;
    if (body[position] === 0x0a) position += 1;
    const next = body.indexOf(delimiter, position);
    if (next === -1) throw new Error('multipart body ends without a closing boundary');
    let end = next;
    // The CRLF before the next delimiter belongs to the delimiter.
    if (body[end - 1] === 0x0a) end -= 1;
    if (body[end - 1] === 0x0d) end -= 1;
    const part = body.subarray(position, end);
    let headerEnd = part.indexOf('\r\n\r\n');
    let separatorLength = 4;
    if (headerEnd === -1) {
      headerEnd = part.indexOf('\n\n');
      separatorLength = 2;
    }
    if (headerEnd === -1) throw new Error('a multipart part has no header/body separator');
    const headers = new Map<string, string>();
    for (const line of part.subarray(0, headerEnd).toString('utf8').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition') ?? '';
    const name = headerParameter(disposition, 'name');
    if (name === undefined) throw new Error('a multipart part has no name in its content-disposition');
    const fileName = headerParameter(disposition, 'filename');
    const contentType = headers.get('content-type');
    parts.push({
      name,
      fileName,
      contentType,
      data: Buffer.from(part.subarray(headerEnd + separatorLength)),
    });
    position = next;
  }
  return parts;
}
