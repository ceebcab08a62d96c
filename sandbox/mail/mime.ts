/**
 * A minimal MIME reader for the sandbox: enough to read what nodemailer sends (unfolded
 * headers, RFC 2047 encoded words, quoted-printable/base64 bodies, nested multiparts).
 * Works on a latin1 string so that bytes survive until a part is decoded with its charset.
 */
export type ParsedMail = { headers: Map<string, string>; text: string | null; html: string | null };

function splitHeadBody(raw: string): [string, string] {
  const match = /\r?\n\r?\n/.exec(raw);
  if (!match) return [raw, ''];
  return [raw.slice(0, match.index), raw.slice(match.index + match[0].length)];
}

function parseHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

function decodeCharset(bytes: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset || 'utf-8').decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}

function decodeQuotedPrintable(text: string): Buffer {
  const softBreaksRemoved = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < softBreaksRemoved.length; i++) {
    const ch = softBreaksRemoved[i] ?? '';
    const hex = softBreaksRemoved.slice(i + 1, i + 3);
    if (ch === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(ch.charCodeAt(0) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

/** Decodes `=?charset?B|Q?...?=` words; plain header text is UTF-8 bytes in latin1 form. */
export function decodeHeader(value: string): string {
  const joined = value.replace(/\?=\s+=\?/g, '?==?');
  let out = '';
  let last = 0;
  for (const m of joined.matchAll(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g)) {
    out += Buffer.from(joined.slice(last, m.index), 'latin1').toString('utf8');
    const [, charset = 'utf-8', encoding = 'B', data = ''] = m;
    const bytes = encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : decodeQuotedPrintable(data.replace(/_/g, ' '));
    out += decodeCharset(bytes, charset);
    last = m.index + m[0].length;
  }
  return out + Buffer.from(joined.slice(last), 'latin1').toString('utf8');
}

function param(contentType: string, name: string): string {
  const m = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]*))`, 'i').exec(contentType);
  return m?.[1] ?? m?.[2] ?? '';
}

function decodeBody(body: string, headers: Map<string, string>): string {
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const charset = param(headers.get('content-type') ?? '', 'charset') || 'utf-8';
  const bytes =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : Buffer.from(body, 'latin1');
  return decodeCharset(bytes, charset).replace(/\r\n/g, '\n');
}

function walk(raw: string, found: { text: string | null; html: string | null }): Map<string, string> {
  const [head, body] = splitHeadBody(raw);
  const headers = parseHeaders(head);
  const contentType = headers.get('content-type') ?? 'text/plain';
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? 'text/plain';
  if (type.startsWith('multipart/')) {
    const boundary = param(contentType, 'boundary');
    if (boundary === '') return headers;
    const sections = body.split(new RegExp(`\\r?\\n?--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \\t]*\\r?\\n?`));
    for (const section of sections.slice(1)) {
      if (section.trim() !== '') walk(section, found);
    }
  } else if (type === 'text/plain' && found.text === null) {
    found.text = decodeBody(body, headers);
  } else if (type === 'text/html' && found.html === null) {
    found.html = decodeBody(body, headers);
  }
  return headers;
}

export function parseMail(raw: Buffer): ParsedMail {
  const found: { text: string | null; html: string | null } = { text: null, html: null };
  const headers = walk(raw.toString('latin1'), found);
  return { headers, text: found.text, html: found.html };
}
