/**
 * A paid invoice that cannot be fulfilled as it stands (a renewal naming no service or no
 * renewable period, a traffic package naming no package): retrying does not help, so the payment
 * workflow fails visibly with it (`FulfilmentDispatchFailed`); its outbox row keeps retrying at
 * the longest backoff with the reason in `last_error` until the data is repaired.
 */
export class FulfilmentImpossibleError extends Error {
  override name = 'FulfilmentImpossibleError';
}
