import type { UpstreamErrorKind } from './supplier-call.js';

/**
 * A row of upstream work's history (a provisioning's steps, a renewal's or traffic package's
 * order history): what an admin reads to see why the work was slow. The area that owns the
 * work adds the service, the kind and the stage.
 */
export type JournalEntry = { status: 'failed' | 'info'; message: string; detail: Record<string, unknown> };

/** Writes one row of the work's history. */
export type StepJournal = (entry: JournalEntry) => Promise<void>;

/** One failed attempt of an upstream step, as its activity saw it (the attempt counts from 1). */
export type FailedAttempt = { attempt: number; kind: UpstreamErrorKind; code: string; message: string; failureType: string };

/** What the classification means for the work, in the words an admin reads. */
const KIND_LABELS: Record<UpstreamErrorKind, string> = {
  transient: '暂时性故障，将自动重试',
  ambiguous: '结果未知，重试前先向上游核对',
  permanent: '无法自动恢复，等待管理员处理',
};

/** The history row of a failed attempt: its number, its classification and the plugin's reason. */
export function failedAttemptEntry(a: FailedAttempt): JournalEntry {
  return {
    status: 'failed',
    message: `第 ${a.attempt} 次尝试失败（${KIND_LABELS[a.kind]}）：${a.message}`,
    detail: { attempt: a.attempt, kind: a.kind, code: a.code, failure_type: a.failureType },
  };
}

/**
 * The history row of a reconciliation: a step found its "sent" mark (an earlier attempt may
 * have reached the upstream) and asked the upstream first. `found` says what it found, or null
 * when nothing was there and the request is sent again.
 */
export function reconciliationEntry(found: string | null): JournalEntry {
  return {
    status: 'info',
    message: found === null ? '核对上游：未发现上次请求的结果，重新发送' : `核对上游：${found}`,
    detail: { reconciliation: found === null ? 'not_found' : 'found' },
  };
}
