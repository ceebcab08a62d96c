import { AppError, ErrorCode } from '../../lib/errors.js';
import type { PluginInvocation } from '../../plugins/runtime/invoke.js';

/**
 * The data of a successful supplier call, or an AppError carrying the plugin's Chinese message:
 * 40930 when the supplier refused for good (`error_kind: permanent`), 50300 otherwise (the
 * supplier is unreachable or busy: try again later). Raw upstream text stays in the runtime log.
 */
export function requireSupplierData(result: PluginInvocation): Record<string, unknown> {
  if (result.success) return result.data;
  const permanent = result.data['error_kind'] === 'permanent';
  throw new AppError(permanent ? ErrorCode.SUPPLIER_REFUSED : ErrorCode.DEPENDENCY_UNAVAILABLE, result.message, {
    error_code: typeof result.data['error_code'] === 'string' ? result.data['error_code'] : null,
  });
}
