import { z } from '@hono/zod-openapi';
import { formatDateTime } from '../../lib/time.js';
import { SUPPLIER_INTERFACE_TYPES, type SupplierRow } from '../../db/models/supplier.js';
import { dateTimeString } from '../schemas.js';

/** The API key never leaves: only whether one is stored. */
export const supplierSchema = z
  .object({
    id: z.number().int(),
    code: z.string(),
    name: z.string(),
    interface_type: z.enum(SUPPLIER_INTERFACE_TYPES),
    plugin_id: z.number().int().nullable(),
    base_url: z.string(),
    account: z.string(),
    has_api_key: z.boolean(),
    status: z.enum(['active', 'disabled']),
    remark: z.string(),
    created_at: dateTimeString.nullable(),
    updated_at: dateTimeString.nullable(),
  })
  .openapi('Supplier');

export function supplierResource(row: SupplierRow): z.infer<typeof supplierSchema> {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    interface_type: row.interface_type,
    plugin_id: row.plugin_id,
    base_url: row.base_url,
    account: row.account,
    has_api_key: row.api_key_sealed !== '',
    status: row.status,
    remark: row.remark,
    created_at: formatDateTime(row.created_at),
    updated_at: formatDateTime(row.updated_at),
  };
}
