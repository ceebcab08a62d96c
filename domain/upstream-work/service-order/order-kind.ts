import type { ServiceOrderRow } from '../../../db/models/service-order.js';
import type { InvoiceRecord } from '../../../db/models/billing.js';
import type { DomainDeps } from '../../deps.js';
import type { OrderBuyingStage } from '../../../workflows/service-order/contract.js';

/** The columns of a `service_orders` row only some kinds fill (null for the others). */
export type OrderColumns = {
  billing_period: string | null;
  months: number | null;
  package_id: number | null;
  package_name: string;
  size_gb: number | null;
  upgrade_config: Record<string, unknown> | null;
  upgrade_price: string | null;
  upgrade_credit: string | null;
};

export const NO_ORDER_COLUMNS: OrderColumns = {
  billing_period: null,
  months: null,
  package_id: null,
  package_name: '',
  size_gb: null,
  upgrade_config: null,
  upgrade_price: null,
  upgrade_credit: null,
};

/**
 * What is particular to one kind of service order (renewal, traffic package, upgrade), in the
 * kind's own folder (`domain/upstream-work/<kind>/`); the table of kinds (`../kinds.ts`) names it
 * and the shared steps (`./`) call it.
 */
export type ServiceOrderKindParts = {
  /**
   * The kind's columns of the order, from its paid invoice's payload; `FulfilmentImpossibleError`
   * (../fulfilment-error.ts) when the invoice names nothing the kind can fulfil.
   */
  columns: (invoice: InvoiceRecord) => Partial<OrderColumns>;
  /** The committing upstream request that asks for the order's bill: its plugin action and payload. */
  request: (deps: DomainDeps, order: ServiceOrderRow, hostId: number) => Promise<{ action: string; payload: Record<string, unknown> }>;
  /** The upstream's kind of the order's bill in `check_order` answers. */
  billKind: string;
  /**
   * Its buying stage (the constant of its workflow contract) and the message of that stage's
   * `started` history row; the stage list and the messages of every order are made from these.
   */
  stage: { name: OrderBuyingStage; message: string };
};

/** A positive integer of an invoice payload (a number or its digits), else null. */
export function positiveInt(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : null;
}
