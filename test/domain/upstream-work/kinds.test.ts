import { describe, expect, it } from 'vitest';
import { SERVICE_ORDER_KINDS } from '../../../db/models/service-order.js';
import { ErrorCode } from '../../../lib/errors.js';
import { INTENT_KINDS } from '../../../domain/outbox/intents.js';
import { homeOfIntent, homeSql, UPSTREAM_WORK_KINDS, WORK_HOMES } from '../../../domain/upstream-work/kinds.js';
import { PROVISION_STAGES, provisionWorkflowId } from '../../../workflows/provisioning/contract.js';
import { renewWorkflowId } from '../../../workflows/renewal/contract.js';
import { SERVICE_ORDER_STAGES } from '../../../workflows/service-order/contract.js';
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
});
