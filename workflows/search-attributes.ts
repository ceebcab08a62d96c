import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Our custom search attributes, defined once. The dev launcher registers them with the
 * Temporal server; ops filter on them in the Temporal UI (e.g. `ServiceId = 123`).
 */
export const SearchAttr = {
  ServiceId: defineSearchAttributeKey('ServiceId', SearchAttributeType.INT),
  InvoiceNo: defineSearchAttributeKey('InvoiceNo', SearchAttributeType.KEYWORD),
  UserId: defineSearchAttributeKey('UserId', SearchAttributeType.INT),
  SupplierCode: defineSearchAttributeKey('SupplierCode', SearchAttributeType.KEYWORD),
  ProviderKey: defineSearchAttributeKey('ProviderKey', SearchAttributeType.KEYWORD),
  BusinessStage: defineSearchAttributeKey('BusinessStage', SearchAttributeType.KEYWORD),
  TaskKey: defineSearchAttributeKey('TaskKey', SearchAttributeType.KEYWORD),
} as const;

/** Name → type, in the words `temporal server start-dev --search-attribute` takes. */
export const SEARCH_ATTRIBUTE_TYPES: Record<string, 'Int' | 'Keyword'> = Object.fromEntries(
  Object.values(SearchAttr).map((k) => [k.name, k.type === SearchAttributeType.INT ? 'Int' : 'Keyword']),
);

/** Set by Temporal itself on every scheduled run. */
export const ScheduledStartTime = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);
