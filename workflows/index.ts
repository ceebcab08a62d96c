// Every workflow the worker registers; the bundle is built from this file.
export { heartbeatWorkflow } from './heartbeat/workflow.js';
export { hourlyWorkflow } from './hourly/workflow.js';
export { dailyWorkflow } from './daily/workflow.js';
export { taskRunWorkflow } from './task-run/workflow.js';
export { invoicePaymentWorkflow } from './invoice-payment/workflow.js';
export { provisionServiceWorkflow } from './provisioning/workflow.js';
export { refundWorkflow } from './refund/workflow.js';
export { renewServiceWorkflow } from './renewal/workflow.js';
export { trafficPackageWorkflow } from './traffic-package/workflow.js';
export { upgradeServiceWorkflow } from './upgrade/workflow.js';
