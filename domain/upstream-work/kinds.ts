import type { SearchAttributePair, UpdateDefinition } from '@temporalio/common';
import { SERVICE_ORDER_KINDS, type ServiceOrderKind } from '../../db/models/service-order.js';
import type { AppConfig } from '../../lib/config.js';
import { ErrorCode, type ErrorCodeValue } from '../../lib/errors.js';
import { INVOICE_KINDS } from '../billing/invoice-kinds.js';
import { decideUpdate, PROVISION_STAGE_QUEUED, PROVISION_WORKFLOW_TYPE, type ProvisionInput, provisionWorkflowId } from '../../workflows/provisioning/contract.js';
import { RENEW_WORKFLOW_TYPE, renewWorkflowId } from '../../workflows/renewal/contract.js';
import { SearchAttr } from '../../workflows/search-attributes.js';
import { decideServiceOrderUpdate, SERVICE_ORDER_FINISH, type ServiceOrderInput } from '../../workflows/service-order/contract.js';
import { TRAFFIC_WORKFLOW_TYPE, trafficWorkflowId } from '../../workflows/traffic-package/contract.js';
import { UPGRADE_WORKFLOW_TYPE, upgradeWorkflowId } from '../../workflows/upgrade/contract.js';
import { type UpstreamDecision, type UpstreamState, upstreamStages } from '../../workflows/upstream/contract.js';
import { type IntentKind, intentKeys } from '../outbox/intents.js';
import { RENEW } from './renew/renew.js';
import type { ServiceOrderKindParts } from './service-order/order-kind.js';
import { TRAFFIC_PACKAGE } from './traffic-package/traffic-package.js';
import { UPGRADE } from './upgrade/upgrade.js';

/**
 * The kernel of upstream work (anything bought from a supplier): one table of its kinds, and
 * decide, deliver, enter stage, mark failed, record attempt and record an admin retry written
 * once over it (./decide.ts, ./record.ts). The state of a kind lives in one of two homes, which
 * have the same columns under a column map (docs/fulfilment.md "One kernel for upstream work"):
 * a provisioning on its service's row, a service order (renewal, traffic package, upgrade) on
 * its `service_orders` row. What is particular to one kind sits in its folder beside the shared
 * steps (`./provision/`, `./renew/`, `./traffic-package/`, `./upgrade/`; the steps all service
 * orders share in `./service-order/`); a new kind is one folder and one row of
 * `UPSTREAM_WORK_KINDS` (docs/CONVENTIONS.md "Upstream work").
 */
export type UpstreamWorkKind = 'provision' | ServiceOrderKind;

/** Where a kind's state lives: the table, its key, and the columns the kernel reads and writes. */
export type WorkHome = {
  table: 'services' | 'service_orders';
  /** The column the work is found by (the route's id): the service id, or the order's invoice id. */
  key: 'id' | 'invoice_id';
  /** The stage column (`provisioning_stage` of a service, `stage` of an order). */
  stage: 'provisioning_stage' | 'stage';
  /** The column of the service whose history (`service_events`) the work writes. */
  serviceId: 'id' | 'service_id';
  /** SQL of the row's kind (a literal where the home holds one kind). */
  kind: string;
  /** Statuses of unfinished work: a failure parks only these. */
  open: readonly string[];
  /** The status a parked failure leaves (the stage is `awaiting_admin` for all). */
  parked: string;
  /** The business code of a decision refused (not waiting, another decision taken, the workflow refused it). */
  errorCode: ErrorCodeValue;
  /** 40400 when the key finds nothing (the kind is not known then: it names every kind of the home). */
  notFound: string;
  /** The outbox row of a decision: its kind, key (one per wait), payload, and the workflow its payload names. */
  intent: {
    kind: Extract<IntentKind, 'decide_provisioning' | 'decide_service_order'>;
    key: (id: number, waitingSince: Date | null) => string;
    payload: (id: number, workflowId: string, decision: UpstreamDecision) => Record<string, unknown>;
    workflowId: (payload: Record<string, unknown>) => string;
  };
  /** The workflow update that carries a decision (its name is in recorded histories). */
  update: UpdateDefinition<UpstreamState<string>, [UpstreamDecision]>;
  /** The message of each stage's `started` history row. */
  stageMessages: Readonly<Record<string, string>>;
};

/** What a piece of upstream work is started for: its service and the paid invoice it fulfils. */
export type StartSubject = { serviceId: number; userId: number; invoiceId: number; invoiceNo: string };

/** How a kind's workflow starts (`startUpstreamWork`, ./start.ts): its input and search attributes. */
export type WorkflowStart = { args: unknown[]; attributes: SearchAttributePair[] };

/** What the kernel knows of one kind. */
export type UpstreamWorkKindSpec = {
  home: WorkHomeName;
  /** The kind in an admin's words. */
  label: string;
  workflow: {
    type: string;
    /** The id pattern (docs/glossary.md names the same) and its builder. */
    pattern: string;
    id: (ref: { serviceId: number; invoiceNo: string }) => string;
    /** The input and search attributes it is started with (those of the histories recorded before: never change them). */
    start: (subject: StartSubject, config: AppConfig) => WorkflowStart;
  };
  /** `service_events.kind` of the work's history rows. */
  eventKind: 'provision' | 'renew' | 'traffic' | 'upgrade';
  messages: { notAwaiting: string; otherDecision: string };
  /**
   * The hold (issue #29 §2) stops this kind before it pays an upstream bill above the service's
   * price (`checkBeforePaying`, ./checks.ts); renewals, traffic packages and upgrades are only flagged.
   */
  holdBelowCost: boolean;
  /**
   * Work of this kind may move to another of the product's bindings (issue #38, ./provision/failover.ts):
   * its funds wait ends after `economics.funds_failover_minutes` when another binding is left.
   * Only provisioning: renewals, traffic packages and upgrades stay with the supplier holding the host.
   */
  failsOver: boolean;
};

/** A service order's kind: the kernel's spec and what its own folder adds (its order's columns, its upstream request). */
export type ServiceOrderKindSpec = UpstreamWorkKindSpec & { order: ServiceOrderKindParts };

/** The history messages of the stages every service order has; each kind adds its buying stage's (`order.stage`). */
const SHARED_ORDER_STAGE_MESSAGES: Readonly<Record<string, string>> = {
  prepare: '准备处理',
  awaiting_upstream_funds: '上游余额不足，等待充值后自动继续',
  upstream_pay: '支付上游账单',
  complete: '完成本地处理',
  cancelling: '取消并退款',
};

/** A service order's workflow: started with its invoice, as every order kind is. */
function orderWorkflow(type: string, pattern: string, id: (invoiceNo: string) => string): UpstreamWorkKindSpec['workflow'] {
  return {
    type,
    pattern,
    id: (r) => id(r.invoiceNo),
    start: (s) => ({
      args: [{ invoiceId: s.invoiceId, invoiceNo: s.invoiceNo } satisfies ServiceOrderInput],
      attributes: [
        { key: SearchAttr.ServiceId, value: s.serviceId },
        { key: SearchAttr.UserId, value: s.userId },
        { key: SearchAttr.InvoiceNo, value: s.invoiceNo },
        { key: SearchAttr.BusinessStage, value: 'queued' },
      ],
    }),
  };
}

function orderKind(label: string, eventKind: UpstreamWorkKindSpec['eventKind'], workflow: UpstreamWorkKindSpec['workflow'], order: ServiceOrderKindParts): ServiceOrderKindSpec {
  return {
    home: 'service_order',
    label,
    workflow,
    eventKind,
    holdBelowCost: false,
    failsOver: false,
    order,
    messages: {
      notAwaiting: `该${label}订单当前不在等待管理员处理的状态，不能重试或取消`,
      otherDecision: `该${label}订单已有管理员作出其他处理决定，请刷新后查看`,
    },
  };
}

/**
 * Every kind of upstream work. A new kind is a row here, its folder beside `./provision/`
 * (what only it does, with a service order's buying stage and its message) and its workflow
 * (`workflows/<kind>/`); the few lines outside those are listed in docs/CONVENTIONS.md "Upstream work".
 */
export const UPSTREAM_WORK_KINDS: { provision: UpstreamWorkKindSpec } & Record<ServiceOrderKind, ServiceOrderKindSpec> = {
  provision: {
    home: 'service',
    label: '开通',
    workflow: {
      type: PROVISION_WORKFLOW_TYPE,
      pattern: 'provision:<service_id>',
      id: (r) => provisionWorkflowId(r.serviceId),
      start: (s, config) => ({
        args: [{ serviceId: s.serviceId, timing: config.provisioning } satisfies ProvisionInput],
        attributes: [
          { key: SearchAttr.ServiceId, value: s.serviceId },
          { key: SearchAttr.UserId, value: s.userId },
          { key: SearchAttr.BusinessStage, value: PROVISION_STAGE_QUEUED },
        ],
      }),
    },
    eventKind: 'provision',
    messages: { notAwaiting: '该开通当前不在等待管理员处理的状态，不能重试或取消', otherDecision: '该开通已有管理员作出其他处理决定，请刷新后查看' },
    holdBelowCost: true,
    failsOver: true,
  },
  renew: orderKind(INVOICE_KINDS.renew.label, 'renew', orderWorkflow(RENEW_WORKFLOW_TYPE, 'renew:<invoice_no>', renewWorkflowId), RENEW),
  traffic_package: orderKind(INVOICE_KINDS.traffic_package.label, 'traffic', orderWorkflow(TRAFFIC_WORKFLOW_TYPE, 'traffic:<invoice_no>', trafficWorkflowId), TRAFFIC_PACKAGE),
  upgrade: orderKind(INVOICE_KINDS.upgrade.label, 'upgrade', orderWorkflow(UPGRADE_WORKFLOW_TYPE, 'upgrade:<invoice_no>', upgradeWorkflowId), UPGRADE),
};

const KIND_NAMES = Object.keys(UPSTREAM_WORK_KINDS) as UpstreamWorkKind[];

/** Each service-order kind's buying stage, in the order of the table. */
const ORDER_BUYING_STAGES = SERVICE_ORDER_KINDS.map((k) => UPSTREAM_WORK_KINDS[k].order.stage);

/**
 * Every stage of a service order (the admin list's `stage` filter): the shared ones around the
 * buying stages the kinds declare.
 */
export const SERVICE_ORDER_STAGES = upstreamStages(
  ORDER_BUYING_STAGES.map((s) => s.name),
  SERVICE_ORDER_FINISH,
);

/** SQL of `service_events.kind` from a row's kind (`kindSql`), from the table above. */
function eventKindSql(kindSql: string): string {
  return `CASE ${kindSql} ${KIND_NAMES.map((k) => `WHEN '${k}' THEN '${UPSTREAM_WORK_KINDS[k].eventKind}'`).join(' ')} END`;
}

/** `a、b或c`: every label, the last one joined by 或. */
const either = (labels: string[]) => (labels.length < 2 ? labels.join('') : `${labels.slice(0, -1).join('、')}或${labels.at(-1)}`);

const sqlList = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

/** The two homes of upstream work's state. */
export const WORK_HOMES = {
  service: {
    table: 'services',
    key: 'id',
    stage: 'provisioning_stage',
    serviceId: 'id',
    kind: `'provision'`,
    open: ['pending', 'provisioning', 'failed'],
    parked: 'failed',
    errorCode: ErrorCode.PROVISIONING_NOT_AWAITING,
    notFound: '服务不存在',
    intent: {
      kind: 'decide_provisioning',
      key: intentKeys.provisioningDecision,
      payload: (id, _workflowId, decision) => ({ service_id: id, decision }),
      workflowId: (payload) => provisionWorkflowId(Number(payload['service_id'])),
    },
    update: decideUpdate as UpdateDefinition<UpstreamState<string>, [UpstreamDecision]>,
    stageMessages: { awaiting_upstream_funds: '上游余额不足，等待充值后自动继续' } as Readonly<Record<string, string>>,
  },
  service_order: {
    table: 'service_orders',
    key: 'invoice_id',
    stage: 'stage',
    serviceId: 'service_id',
    kind: 'kind',
    open: ['pending', 'processing', 'awaiting_admin'],
    parked: 'awaiting_admin',
    errorCode: ErrorCode.SERVICE_ORDER_NOT_AWAITING,
    notFound: `服务订单（${either(SERVICE_ORDER_KINDS.map((k) => UPSTREAM_WORK_KINDS[k].label))}）不存在`,
    intent: {
      kind: 'decide_service_order',
      key: intentKeys.serviceOrderDecision,
      payload: (id, workflowId, decision) => ({ invoice_id: id, workflow_id: workflowId, decision }),
      workflowId: (payload) => String(payload['workflow_id']),
    },
    update: decideServiceOrderUpdate as UpdateDefinition<UpstreamState<string>, [UpstreamDecision]>,
    stageMessages: { ...SHARED_ORDER_STAGE_MESSAGES, ...Object.fromEntries(ORDER_BUYING_STAGES.map((s) => [s.name, s.message])) } as Readonly<Record<string, string>>,
  },
} as const satisfies Record<string, WorkHome>;

export type WorkHomeName = keyof typeof WORK_HOMES;

/** One piece of upstream work: its home and its key there (a service id, or an order's invoice id). */
export type UpstreamWorkRef = { home: WorkHomeName; id: number };

export const provisioningWork = (serviceId: number): UpstreamWorkRef => ({ home: 'service', id: serviceId });
export const serviceOrderWork = (invoiceId: number): UpstreamWorkRef => ({ home: 'service_order', id: invoiceId });

/** The home whose decisions an outbox kind carries. */
export function homeOfIntent(kind: IntentKind): WorkHome | null {
  return Object.values(WORK_HOMES).find((h) => h.intent.kind === kind) ?? null;
}

/** SQL fragments of a home, row alias `w`: the service, its kind and the `service_events.kind`. */
export function homeSql(home: WorkHome) {
  const kind = home.kind.startsWith("'") ? home.kind : `w.${home.kind}`;
  return { kind, eventKind: eventKindSql(kind), open: sqlList(home.open) };
}
