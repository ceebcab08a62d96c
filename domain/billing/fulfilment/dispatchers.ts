import type { DomainDeps } from '../../deps.js';
import type { InvoiceRecord } from '../../../db/models/money.js';

/**
 * Fulfilment of a paid renewal or traffic-package invoice. The provisioning work registers
 * one per type (`registerFulfilmentDispatcher('renew', …)`) at import of its module, typically
 * starting its workflow with an idempotent id. A dispatcher must be idempotent: it may run
 * again after a crash (see `redispatchPendingFulfilment`).
 */
export type FulfilmentDispatcher = (deps: DomainDeps, invoice: InvoiceRecord) => Promise<void>;

export type DispatchedType = 'renew' | 'traffic_package';

const dispatchers = new Map<DispatchedType, FulfilmentDispatcher>();

export function registerFulfilmentDispatcher(type: DispatchedType, dispatcher: FulfilmentDispatcher): void {
  dispatchers.set(type, dispatcher);
}

export function unregisterFulfilmentDispatcher(type: DispatchedType): void {
  dispatchers.delete(type);
}

export function fulfilmentDispatcher(type: DispatchedType): FulfilmentDispatcher | undefined {
  return dispatchers.get(type);
}

/** Raised when a paid invoice's type has no dispatcher yet: the payment workflow fails visibly with it. */
export class FulfilmentNotImplementedError extends Error {
  override name = 'FulfilmentNotImplementedError';
}
