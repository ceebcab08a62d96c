import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INVOICE_TYPES, ORDER_TYPES, RECHARGE_SCENES } from '../../../db/models/billing.js';
import { SERVICE_ORDER_KINDS } from '../../../db/models/service-order.js';
import { UPSTREAM_COST_KINDS } from '../../../domain/economics/upstream-costs.js';
import { SERVICE_ORDER_KIND_LABELS } from '../../../domain/upstream-work/service-order/order-record.js';
import { UPSTREAM_WORK_KINDS } from '../../../domain/upstream-work/kinds.js';
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

  describe('every rule about kinds elsewhere reads this table', () => {
    const serviceOrderKinds = invoiceTypesWhere('fulfilment', 'service_order');

    it('service orders are the kinds fulfilled by a service order, upstream costs those and the provisioning', () => {
      expect([...SERVICE_ORDER_KINDS]).toEqual(serviceOrderKinds);
      expect([...UPSTREAM_COST_KINDS]).toEqual(['provision', ...serviceOrderKinds]);
      expect(Object.keys(UPSTREAM_WORK_KINDS)).toEqual([...UPSTREAM_COST_KINDS]);
    });

    it('a kind has one label, the table one (an upgrade is 升降级 on the invoice, the service order and the upstream work)', () => {
      for (const kind of serviceOrderKinds) {
        expect(SERVICE_ORDER_KIND_LABELS[kind as keyof typeof SERVICE_ORDER_KIND_LABELS], kind).toBe(INVOICE_KINDS[kind].label);
        expect(UPSTREAM_WORK_KINDS[kind as keyof typeof UPSTREAM_WORK_KINDS].label, kind).toBe(INVOICE_KINDS[kind].label);
      }
    });

    it('no source file lists kinds or labels them by hand (the stored vocabularies in db/models aside)', () => {
      const root = join(import.meta.dirname, '../../..');
      // lib/config.ts: ACCESS_ACTIONS names guarded actions (buying, recharging…), not invoice kinds, in words that coincide.
      const allowed = new Set(['domain/billing/invoice-kinds.ts', 'db/models/billing.ts', 'db/models/service-order.ts', 'lib/config.ts']);
      const kindName = `['"](?:${INVOICE_TYPES.join('|')}|provision)['"]`;
      const handList = new RegExp(`${kindName}\\s*,\\s*${kindName}`);
      const handLabel = /\b(?:renew|traffic_package):\s*['"][^'"]*[\u4e00-\u9fff]/;
      const found: string[] = [];
      const walk = (dir: string): void => {
        for (const name of readdirSync(dir)) {
          const path = join(dir, name);
          if (statSync(path).isDirectory()) walk(path);
          else if (name.endsWith('.ts')) {
            const file = relative(root, path);
            if (allowed.has(file)) continue;
            readFileSync(path, 'utf8')
              .split('\n')
              .forEach((line, i) => {
                if (handList.test(line) || handLabel.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
              });
          }
        }
      };
      for (const dir of ['domain', 'api', 'activities', 'workflows', 'lib', 'db/models']) walk(join(root, dir));
      expect(found).toEqual([]);
    });
  });
});
