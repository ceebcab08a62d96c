import { fileTypeFromBuffer } from 'file-type';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { validationError } from '../../lib/errors.js';
import { MEDIA_MIME_TYPES, type MediaMime } from '../../db/models/support.js';

/** What an upload turned out to be, decided from its bytes only (never its name or declared type). */
export type InspectedFile = { mime: MediaMime; width: number | null; height: number | null };

export const IMAGE_MIME_TYPES: readonly MediaMime[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** The extension a stored file is named with on download, from its decided type. */
export const EXTENSION_OF: Record<MediaMime, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
};

const MAX_SIDE = 10_000;
const MAX_PIXELS = 40_000_000;

/**
 * Markup a browser could run if it ever sniffed the file as HTML/SVG/XML: its presence anywhere
 * in the bytes makes an image, PDF or text a polyglot, refused whatever its magic number says.
 * (XMP metadata in photos uses `<?xpacket`/`<x:xmpmeta`, which are not in the list.)
 */
const MARKUP = ['<script', '<html', '<svg', '<!doctype', '<iframe', '<body', '<head', '<object', '<embed', '<meta', '<style', '<form', '<link', 'javascript:'];
/** Text files may not be XML or a markup comment either. */
const TEXT_MARKUP = [...MARKUP, '<?xml', '<!--', '<a ', '<img'];
/** Active PDF content: scripts and launch actions. */
const PDF_ACTIVE = ['/javascript', '/js ', '/js(', '/js<', '/launch', '/richmedia', '/xfa'];

// eslint-disable-next-line no-control-regex
const TEXT_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

function refuse(message: string): never {
  throw validationError({ file: [message] }, message);
}

function containsAny(lowerLatin1: string, needles: readonly string[]): boolean {
  return needles.some((n) => lowerLatin1.includes(n));
}

function checkDimensions(width: number, height: number): { width: number; height: number } {
  if (!(width > 0 && height > 0)) refuse('图片尺寸无效');
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS) refuse(`图片尺寸过大（单边最多 ${MAX_SIDE} 像素，总像素最多 4000 万）`);
  return { width, height };
}

/** PNG: header dimensions first (no pixel bomb is inflated), then a full decode (CRCs, zlib stream). */
function decodePng(bytes: Buffer) {
  if (bytes.length < 24) refuse('图片文件已损坏');
  checkDimensions(bytes.readUInt32BE(16), bytes.readUInt32BE(20));
  try {
    const png = PNG.sync.read(bytes, { checkCRC: true });
    return checkDimensions(png.width, png.height);
  } catch {
    return refuse('图片文件已损坏，无法解码');
  }
}

function decodeJpeg(bytes: Buffer) {
  try {
    const image = jpeg.decode(bytes, { maxResolutionInMP: MAX_PIXELS / 1_000_000, maxMemoryUsageInMB: 256, useTArray: true });
    return checkDimensions(image.width, image.height);
  } catch {
    return refuse('图片文件已损坏，无法解码');
  }
}

/** GIF: header and logical screen, and the trailer byte the format ends with. */
function checkGif(bytes: Buffer) {
  if (bytes.length < 14 || bytes[bytes.length - 1] !== 0x3b) refuse('图片文件已损坏');
  return checkDimensions(bytes.readUInt16LE(6), bytes.readUInt16LE(8));
}

/** WebP: the RIFF size matches the file, and the first chunk (VP8, VP8L or VP8X) gives sane dimensions. */
function checkWebp(bytes: Buffer) {
  if (bytes.length < 30 || bytes.readUInt32LE(4) + 8 !== bytes.length) refuse('图片文件已损坏');
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) refuse('图片文件已损坏');
    return checkDimensions(bytes.readUInt16LE(26) & 0x3fff, bytes.readUInt16LE(28) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) refuse('图片文件已损坏');
    const bits = bytes.readUInt32LE(21);
    return checkDimensions((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') {
    return checkDimensions(bytes.readUIntLE(24, 3) + 1, bytes.readUIntLE(27, 3) + 1);
  }
  return refuse('图片文件已损坏');
}

function checkText(bytes: Buffer, lower: string): void {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    refuse('文本文件须为 UTF-8 编码');
  }
  if (TEXT_CONTROL.test(text)) refuse('不支持的文件类型：仅支持 PNG、JPEG、WebP、GIF 图片，PDF 与纯文本');
  if (containsAny(lower, TEXT_MARKUP)) refuse('不支持 HTML、SVG、XML 等标记文件');
}

/**
 * Decides an upload's type from its bytes (magic numbers, `file-type`) against the allowlist
 * (`allowed`), refusing anything else with 42200: SVG, HTML (whatever it is named), XML,
 * executables, archives, and polyglots (an allowed format carrying markup or active PDF
 * content). Images must decode (PNG, JPEG fully; GIF, WebP by their headers) within size limits.
 */
export async function inspectUpload(bytes: Buffer, allowed: readonly MediaMime[]): Promise<InspectedFile> {
  if (bytes.length === 0) refuse('文件不能为空');
  const detected = await fileTypeFromBuffer(bytes);
  const lower = bytes.toString('latin1').toLowerCase();
  const allowedText = allowed.map((m) => EXTENSION_OF[m].toUpperCase()).join('、');
  if (!detected) {
    // No binary signature: only plain UTF-8 text qualifies.
    if (!allowed.includes('text/plain')) refuse(`不支持的文件类型，仅支持：${allowedText}`);
    checkText(bytes, lower);
    return { mime: 'text/plain', width: null, height: null };
  }
  const mime = detected.mime as MediaMime;
  if (!(MEDIA_MIME_TYPES as readonly string[]).includes(mime) || !allowed.includes(mime)) refuse(`不支持的文件类型，仅支持：${allowedText}`);
  if (containsAny(lower, MARKUP)) refuse('文件中含有网页标记内容，已拒绝');
  if (mime === 'application/pdf') {
    if (containsAny(lower, PDF_ACTIVE)) refuse('PDF 中含有脚本或可执行动作，已拒绝');
    return { mime, width: null, height: null };
  }
  const size =
    mime === 'image/png' ? decodePng(bytes) : mime === 'image/jpeg' ? decodeJpeg(bytes) : mime === 'image/gif' ? checkGif(bytes) : checkWebp(bytes);
  return { mime, ...size };
}
