/** `unlimited` without stock control; otherwise `in_stock` or `out_of_stock` by the quantity left. */
export type StockStatus = 'unlimited' | 'in_stock' | 'out_of_stock';

export const STOCK_STATUSES = ['unlimited', 'in_stock', 'out_of_stock'] as const;

export function stockStatus(stockControl: boolean, stockQty: number): StockStatus {
  if (!stockControl) return 'unlimited';
  return stockQty > 0 ? 'in_stock' : 'out_of_stock';
}
