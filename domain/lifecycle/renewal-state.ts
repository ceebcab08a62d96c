/**
 * SQL condition on a service aliased `s`: a renewal of it was paid and is still being fulfilled
 * (its `service_orders` row is missing, i.e. not dispatched yet, or pending, processing
 * or awaiting an admin; the same rule as the services domain's `findOpenServiceOrder`). Such a
 * service is renewed, only not yet extended: it gets no overdue notice or renewal reminder, is
 * neither suspended nor terminated, and gets no second renewal invoice.
 *
 * Read from what is open, not from the service's history (issue #35): the open order through
 * `service_orders_one_open` (service, kind; partial on the open statuses), the paid renewal not
 * yet dispatched through `invoices_undispatched_service_idx` (migration 0043). A service order is
 * made before its invoice is marked dispatched (`dispatchFulfilment`), and a redispatch clears
 * `dispatched_at` again, so a paid renewal without an order is never dispatched. The rule used to
 * read every paid renewal of the service (its whole history, with a lookup of each one's order).
 */
export const RENEWAL_PAID_NOT_APPLIED = `(EXISTS (
  SELECT 1 FROM service_orders uo JOIN invoices ri ON ri.id = uo.invoice_id
   WHERE uo.service_id = s.id AND uo.kind = 'renew' AND uo.status IN ('pending', 'processing', 'awaiting_admin')
     AND ri.service_id = s.id AND ri.type = 'renew' AND ri.paid_at IS NOT NULL AND ri.status IN ('paid', 'partially_refunded'))
  OR EXISTS (
  SELECT 1 FROM invoices ri
   WHERE ri.service_id = s.id AND ri.service_id IS NOT NULL AND ri.dispatched_at IS NULL AND ri.paid_at IS NOT NULL
     AND ri.type = 'renew' AND ri.status IN ('paid', 'partially_refunded')
     AND NOT EXISTS (SELECT 1 FROM service_orders uo WHERE uo.invoice_id = ri.id)))`;
