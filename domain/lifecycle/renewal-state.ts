/**
 * SQL condition on a service aliased `s`: a renewal of it was paid but its fulfilment has not
 * completed yet (the renewal order is still `paid`; the renew workflow completes it when the due
 * date has moved). Such a service is renewed, only not yet extended: it gets no overdue notice,
 * is neither suspended nor terminated, and gets no second renewal invoice.
 */
export const RENEWAL_PAID_NOT_APPLIED = `EXISTS (
  SELECT 1 FROM invoices ri JOIN orders ro ON ro.invoice_id = ri.id
   WHERE ri.service_id = s.id AND ri.type = 'renew' AND ri.status IN ('paid', 'partially_refunded') AND ro.status = 'paid')`;
