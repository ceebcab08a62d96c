import { describe, expect, it } from 'vitest';
import { INVOICE_TYPES, ORDER_TYPES, RECHARGE_SCENES } from '../../../db/models/billing.js';
import { FULFILLED_TYPES } from '../../../domain/upstream-work/dispatch-fulfilment.js';
import { DISPATCHED_FULFILMENTS, INVOICE_KINDS, type InvoiceKind, invoiceTypeNames, invoiceTypesWhere } from '../../../domain/billing/invoice-kinds.js';

const kinds = Object.entries(INVOICE_KINDS) as [string, InvoiceKind][];

describe('the invoice kinds table', () => {
  it('describes every stored invoice type, and nothing else', () => {
    expect(Object.keys(INVOICE_KINDS).sort()).toEqual([...INVOICE_TYPES].sort());
  });

  // The lists each helper answers are the ones the code and its SQL used to write by hand.
  it.each([
    ['payable', [], ['purchase', 'renew', 'traffic_package', 'upgrade', 'recharge', 'verification']],
    ['payableFromBalance', [], ['purchase', 'renew', 'traffic_package', 'upgrade', 'verification']],
    ['refundable', [], ['purchase', 'renew', 'traffic_package', 'upgrade']],
    ['fulfilment', [], ['purchase', 'renew', 'traffic_package', 'upgrade', 'recharge', 'verification']],
    ['fulfilment', ['provisioning'], ['purchase']],
    ['fulfilment', ['service_order'], ['renew', 'traffic_package', 'upgrade']],
    ['fulfilment', ['verification'], ['verification']],
    ['fulfilment', ['settlement'], ['recharge']],
    ['fulfilment', DISPATCHED_FULFILMENTS, ['purchase', 'renew', 'traffic_package', 'upgrade', 'verification']],
    ['earnsCommission', [], ['purchase', 'renew', 'traffic_package', 'upgrade']],
    ['memberSpend', [], ['purchase', 'renew', 'traffic_package', 'upgrade']],
    ['countsAs', ['sales'], ['purchase', 'renew', 'traffic_package', 'upgrade', 'verification']],
    ['countsAs', ['recharge'], ['recharge']],
    ['orderType', [], ['purchase', 'renew', 'traffic_package', 'upgrade']],
    ['rechargeScene', [], ['purchase', 'renew', 'traffic_package', 'upgrade', 'recharge', 'verification']],
    ['staleWhen', ['days_old'], ['purchase', 'traffic_package']],
    ['staleWhen', ['quote_day_over'], ['upgrade']],
    ['staleWhen', ['service_ended'], ['renew']],
  ] as const)('invoiceTypesWhere(%s, …%j) answers %j', (property, values, expected) => {
    expect((invoiceTypesWhere as (p: string, ...v: readonly string[]) => string[])(property, ...values)).toEqual(expected);
  });

  it('answers the fulfilled types of the settlement and the backstop', () => {
    expect(FULFILLED_TYPES).toEqual(['purchase', 'renew', 'traffic_package', 'upgrade', 'verification']);
  });

  it('gives each kind its order type, recharge scene and label', () => {
    const of = <K extends keyof InvoiceKind>(property: K) => Object.fromEntries(kinds.map(([type, kind]) => [type, kind[property]]));
    expect(of('orderType')).toEqual({
      purchase: 'new_purchase',
      renew: 'renewal',
      traffic_package: 'traffic_package',
      upgrade: 'upgrade',
      recharge: null,
      deduction: null,
      refund: null,
      verification: null,
    });
    expect(of('rechargeScene')).toEqual({
      purchase: 'new_purchase',
      renew: 'renewal',
      traffic_package: 'new_purchase',
      upgrade: 'new_purchase',
      recharge: 'user_recharge',
      deduction: null,
      refund: null,
      verification: 'new_purchase',
    });
    expect(of('label')).toEqual({
      purchase: '新购',
      renew: '续费',
      traffic_package: '流量包',
      upgrade: '升降级',
      recharge: '充值',
      deduction: '扣款',
      refund: '退款',
      verification: '实名认证',
    });
  });

  it('holds together: one order type per kind with an order, refunds need an order, only what users pay is fulfilled', () => {
    const orderTypes = kinds.map(([, kind]) => kind.orderType).filter((t) => t !== null);
    expect([...orderTypes].sort()).toEqual([...ORDER_TYPES].sort());
    for (const [type, kind] of kinds) {
      if (kind.payableFromBalance || kind.refundable || kind.earnsCommission || kind.memberSpend) expect(kind.payable, type).toBe(true);
      if (kind.refundable) expect(kind.orderType, type).not.toBeNull();
      expect(kind.fulfilment !== null, type).toBe(kind.payable);
      expect(kind.rechargeScene !== null, type).toBe(kind.payable);
      if (kind.rechargeScene !== null) expect(RECHARGE_SCENES, type).toContain(kind.rechargeScene);
    }
  });

  it('names types as a Chinese list', () => {
    expect(invoiceTypeNames(invoiceTypesWhere('refundable'))).toBe('新购、续费、流量包与升降级');
    expect(invoiceTypeNames(['recharge'])).toBe('充值');
    expect(invoiceTypeNames([])).toBe('');
  });
});
