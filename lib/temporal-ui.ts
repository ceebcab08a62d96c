import type { AppConfig } from './config.js';

/** The Temporal UI page of the configured namespace. */
export function temporalUiBase(config: AppConfig): string {
  return `${config.temporal.uiUrl}/namespaces/${encodeURIComponent(config.temporal.namespace)}`;
}

/** A workflow's page in the Temporal UI (its latest run, or one run). */
export function temporalWorkflowUrl(config: AppConfig, workflowId: string, runId?: string): string {
  const base = `${temporalUiBase(config)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}` : base;
}
