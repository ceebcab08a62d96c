/**
 * SQL condition on a service aliased `s`: a renewal of it was paid and is still being fulfilled
 * (its `service_orders` row is missing, i.e. not dispatched yet, or pending, processing
 * or awaiting an admin; the same rule as the services domain's `findOpenServiceOrder`). Such a
 * service is renewed, only not yet extended: it gets no overdue notice or renewal reminder, is
 * neither suspended nor terminated, and gets no second renewal invoice.
 */
export const RENEWAL_PAID_NOT_APPLIED = `EXISTS (
  SELECT 1 FROM invoices ri LEFT JOIN service_orders uo ON uo.invoice_id = ri.id
   WHERE ri.service_id = s.id AND ri.type = 'renew' AND ri.paid_at IS NOT NULL AND ri.status IN ('paid', 'partially_refunded')
     AND (uo.id IS NULL OR uo.status IN ('pending', 'processing', 'awaiting_admin')))`;
