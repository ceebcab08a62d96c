import { describe, expect, it } from 'vitest';
import type { InvoiceRecord } from '../../../db/models/billing.js';
import type { AppConfig } from '../../../lib/config.js';
import { FulfilmentImpossibleError } from '../../../domain/upstream-work/fulfilment-error.js';
import { SERVICE_ORDER_KINDS } from '../../../db/models/service-order.js';
import { ErrorCode } from '../../../lib/errors.js';
import { INTENT_KINDS } from '../../../domain/outbox/intents.js';
import { homeOfIntent, homeSql, SERVICE_ORDER_STAGES, UPSTREAM_WORK_KINDS, WORK_HOMES } from '../../../domain/upstream-work/kinds.js';
import * as WORKFLOWS from '../../../workflows/index.js';
import { PROVISION_STAGES, provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { renewWorkflowId } from '../../../workflows/renewal/contract.js';
import { SERVICE_ORDER_SHARED_STAGES } from '../../../workflows/service-order/contract.js';
import { trafficWorkflowId } from '../../../workflows/traffic-package/contract.js';
import { upgradeWorkflowId } from '../../../workflows/upgrade/contract.js';
import { UPSTREAM_STAGES } from '../../../workflows/upstream/contract.js';

describe('the upstream-work kernel’s table of kinds', () => {
  it('covers provisioning and every service-order kind, each in its home', () => {
    expect(Object.keys(UPSTREAM_WORK_KINDS).sort()).toEqual(['provision', ...SERVICE_ORDER_KINDS].sort());
    expect(UPSTREAM_WORK_KINDS.provision.home).toBe('service');
    for (const kind of SERVICE_ORDER_KINDS) expect(UPSTREAM_WORK_KINDS[kind].home).toBe('service_order');
  });

  it('builds the workflow ids the workflows run under (the ids in recorded histories)', () => {
    const ref = { serviceId: 7, invoiceNo: 'INV1' };
    expect(UPSTREAM_WORK_KINDS.provision.workflow.id(ref)).toBe(provisionWorkflowId(7));
    expect(UPSTREAM_WORK_KINDS.renew.workflow.id(ref)).toBe(renewWorkflowId('INV1'));
    expect(UPSTREAM_WORK_KINDS.traffic_package.workflow.id(ref)).toBe(trafficWorkflowId('INV1'));
    expect(UPSTREAM_WORK_KINDS.upgrade.workflow.id(ref)).toBe(upgradeWorkflowId('INV1'));
    expect(Object.values(UPSTREAM_WORK_KINDS).map((k) => k.workflow.id(ref))).toEqual(['provision:7', 'renew:INV1', 'traffic:INV1', 'upgrade:INV1']);
  });

  it('names the kind in its refusals, and an unknown service order names every kind (upgrades too)', () => {
    expect(WORK_HOMES.service_order.notFound).toBe('服务订单（续费、流量包或升降级）不存在');
    expect(UPSTREAM_WORK_KINDS.upgrade.messages.notAwaiting).toContain('升降级订单');
    expect(UPSTREAM_WORK_KINDS.upgrade.messages.otherDecision).toContain('升降级订单');
    for (const kind of Object.values(UPSTREAM_WORK_KINDS)) {
      expect(kind.messages.notAwaiting).toContain(kind.label);
      expect(kind.messages.otherDecision).toContain(kind.label);
    }
    expect(WORK_HOMES.service.errorCode).toBe(ErrorCode.PROVISIONING_NOT_AWAITING);
    expect(WORK_HOMES.service_order.errorCode).toBe(ErrorCode.SERVICE_ORDER_NOT_AWAITING);
  });

  it('delivers each home’s decisions from its own outbox kind', () => {
    for (const home of Object.values(WORK_HOMES)) {
      expect(INTENT_KINDS).toContain(home.intent.kind);
      expect(homeOfIntent(home.intent.kind)).toBe(home);
    }
    expect(homeOfIntent('start_payment')).toBeNull();
    expect(WORK_HOMES.service.intent.workflowId({ service_id: 7 })).toBe('provision:7');
    expect(WORK_HOMES.service_order.intent.workflowId({ invoice_id: 3, workflow_id: 'upgrade:INV3' })).toBe('upgrade:INV3');
  });

  it('writes every kind’s history kind from the row', () => {
    const sql = homeSql(WORK_HOMES.service_order).eventKind;
    for (const [kind, spec] of Object.entries(UPSTREAM_WORK_KINDS)) expect(sql).toContain(`WHEN '${kind}' THEN '${spec.eventKind}'`);
    expect(homeSql(WORK_HOMES.service).kind).toBe(`'provision'`);
  });

  it('shares the stages of all kinds from one list', () => {
    for (const stage of [...UPSTREAM_STAGES.start, ...UPSTREAM_STAGES.pay, ...UPSTREAM_STAGES.end]) {
      expect(PROVISION_STAGES).toContain(stage);
      expect(SERVICE_ORDER_STAGES).toContain(stage);
    }
    // The lists (and the admin filters built on them): those of before, with the funds wait (issue #29)
    // added once, before the payment, in every kind.
    expect(PROVISION_STAGES).toEqual(['queued', 'prepare', 'login', 'cart', 'checkout', 'awaiting_upstream_funds', 'upstream_pay', 'host_lookup', 'bind', 'activate', 'done', 'awaiting_admin', 'cancelling', 'cancelled']);
    expect(SERVICE_ORDER_STAGES).toEqual(['queued', 'prepare', 'upstream_renew', 'upstream_buy', 'upstream_upgrade', 'awaiting_upstream_funds', 'upstream_pay', 'complete', 'done', 'awaiting_admin', 'cancelling', 'cancelled']);
  });

  it('makes the service orders’ stages and their history messages from what each kind declares, once', () => {
    const buying = SERVICE_ORDER_KINDS.map((k) => UPSTREAM_WORK_KINDS[k].order.stage);
    // Each kind its own buying stage, none of them a stage every order has.
    expect(new Set(buying.map((s) => s.name)).size).toBe(buying.length);
    for (const stage of buying) {
      expect(SERVICE_ORDER_SHARED_STAGES).not.toContain(stage.name);
      expect(SERVICE_ORDER_STAGES).toContain(stage.name);
      expect(stage.message).not.toBe('');
      expect(WORK_HOMES.service_order.stageMessages[stage.name]).toBe(stage.message);
    }
    // Nothing else: the shared stages and the kinds' buying stages.
    expect([...SERVICE_ORDER_STAGES].sort()).toEqual([...SERVICE_ORDER_SHARED_STAGES, ...buying.map((s) => s.name)].sort());
    // Every stage an order enters on its own work has its message (the rest are set by decisions or the end).
    for (const stage of SERVICE_ORDER_STAGES.filter((s) => !['queued', 'done', 'awaiting_admin', 'cancelled'].includes(s))) {
      expect(WORK_HOMES.service_order.stageMessages[stage], stage).toBeTruthy();
    }
  });

  it('has every kind’s workflow registered with the worker (exported from workflows/index.ts under its type)', () => {
    for (const kind of Object.values(UPSTREAM_WORK_KINDS)) expect(Object.keys(WORKFLOWS)).toContain(kind.workflow.type);
  });

  it('starts each kind with the input and search attributes of before (the starts in recorded histories)', () => {
    const subject = { serviceId: 7, userId: 3, invoiceId: 11, invoiceNo: 'INV11' };
    const config = { provisioning: { activityTimeoutSeconds: 60, maxAttempts: 8, hostPollSeconds: [5], hostWaitMinutes: 120 } } as unknown as AppConfig;
    const pairs = (kind: keyof typeof UPSTREAM_WORK_KINDS) => {
      const { args, attributes } = UPSTREAM_WORK_KINDS[kind].workflow.start(subject, config);
      return { args, attributes: attributes.map((a) => [a.key.name, a.value]) };
    };
    expect(pairs('provision')).toEqual({
      args: [{ serviceId: 7, timing: config.provisioning }],
      attributes: [['ServiceId', 7], ['UserId', 3], ['BusinessStage', 'queued']],
    });
    for (const kind of SERVICE_ORDER_KINDS) {
      expect(pairs(kind)).toEqual({
        args: [{ invoiceId: 11, invoiceNo: 'INV11' }],
        attributes: [['ServiceId', 7], ['UserId', 3], ['InvoiceNo', 'INV11'], ['BusinessStage', 'queued']],
      });
    }
    expect(UPSTREAM_WORK_KINDS.renew.workflow.type).toBe('renewServiceWorkflow');
    expect(UPSTREAM_WORK_KINDS.traffic_package.workflow.type).toBe('trafficPackageWorkflow');
    expect(UPSTREAM_WORK_KINDS.upgrade.workflow.type).toBe('upgradeServiceWorkflow');
    expect(UPSTREAM_WORK_KINDS.provision.workflow.type).toBe('provisionServiceWorkflow');
  });

  it('reads each service order kind’s own columns from its invoice, and refuses an invoice that names none', () => {
    const invoice = (type: string, payload: Record<string, unknown>) => ({ type, invoice_no: 'INV1', payload }) as unknown as InvoiceRecord;
    expect(UPSTREAM_WORK_KINDS.renew.order.columns(invoice('renew', { billing_period: 'monthly' }))).toEqual({ billing_period: 'monthly', months: 1 });
    expect(UPSTREAM_WORK_KINDS.renew.order.columns(invoice('renew', { billing_period: 'monthly', months: '3' }))).toEqual({ billing_period: 'monthly', months: 3 });
    expect(UPSTREAM_WORK_KINDS.traffic_package.order.columns(invoice('traffic_package', { package_id: 4, package_name: '100G', size_gb: 100 }))).toEqual({
      package_id: 4,
      package_name: '100G',
      size_gb: 100,
    });
    expect(() => UPSTREAM_WORK_KINDS.renew.order.columns(invoice('renew', {}))).toThrow(FulfilmentImpossibleError);
    expect(() => UPSTREAM_WORK_KINDS.traffic_package.order.columns(invoice('traffic_package', { package_id: 0 }))).toThrow(FulfilmentImpossibleError);
    expect(() => UPSTREAM_WORK_KINDS.upgrade.order.columns(invoice('upgrade', { upgrade_config: {} }))).toThrow(FulfilmentImpossibleError);
    expect(Object.fromEntries(SERVICE_ORDER_KINDS.map((k) => [k, UPSTREAM_WORK_KINDS[k].order.billKind]))).toEqual({
      renew: 'renewal',
      traffic_package: 'traffic_package',
      upgrade: 'upgrade',
    });
  });
});
