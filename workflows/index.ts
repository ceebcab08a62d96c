// Every workflow the worker registers; the bundle is built from this file.
export { heartbeatWorkflow } from './heartbeat/workflow.js';
