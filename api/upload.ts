import { z } from '@hono/zod-openapi';
import { AppError, ErrorCode } from '../lib/errors.js';

/**
 * Upload routes take one multipart form field `file` (spec: upload endpoints take multipart
 * form data and answer with the JSON envelope). Only routes declaring this body accept
 * multipart: every other route keeps answering 41500 for it.
 */
const fileField = z
  .custom<File>((value) => value instanceof File, { error: '请选择要上传的文件（表单字段 file，一次一个）' })
  .openapi({ type: 'string', format: 'binary', description: '要上传的文件' });

export const uploadBody = {
  body: {
    content: { 'multipart/form-data': { schema: z.object({ file: fileField }) } },
    required: true,
  },
};

/** The file's bytes within the limit (41300 past it; the request body limit already refused far larger ones unread). */
export async function readUpload(file: File, maxBytes: number): Promise<{ bytes: Buffer; name: string }> {
  if (file.size > maxBytes) throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `文件过大，最多 ${Math.floor(maxBytes / 1024 / 1024)} MB`);
  return { bytes: Buffer.from(await file.arrayBuffer()), name: file.name.slice(0, 255) };
}
