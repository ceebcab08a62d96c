import { auditChainIntact, auditChainRows } from '../../lib/metrics.js';
import { sqlOne, sqlRows } from '../../db/sql.js';
import type { DomainDeps } from '../deps.js';
import { TaskFailure } from '../tasks/task-failure.js';
import { recordSystemLog } from './system-logs.js';

/**
 * The admin audit's hash chain (migration 0023): each row has `chain_seq` (1, 2, 3…),
 * `prev_hash` (the `row_hash` of the row before it; 64 zeros for the first) and `row_hash`,
 * sha256 of `admin_audit_row_text(row)` (every stored column, `chain_seq` and `prev_hash`
 * included), computed by a BEFORE INSERT trigger that takes the one-row chain head
 * `admin_audit_chain_head` FOR UPDATE (held to commit: chain order is commit order).
 *
 * The verification walks the chain in pages of `chain_seq`, recomputing each hash in the
 * database, and reports the first break:
 * - `edited`: the row's content no longer gives its `row_hash` (changed by hand);
 * - `missing_before`: rows before it are gone (`chain_seq` skips);
 * - `relinked`: its `prev_hash` is not the hash of the row before it (the row before it was
 *   changed and re-hashed, or replaced);
 * - `missing_after`: the head says the chain is longer, or ends on another hash (the last rows
 *   were deleted).
 * Limit: someone who can write the table with its triggers off and rewrite every row from the
 * break to the head (and the head) leaves a consistent chain. The daily task writes the head's
 * sequence and hash to the system log and its run summary, so such a rewrite is found later by
 * comparing the recorded heads with the rows they name (`chain_seq` of a recorded head must
 * still carry the recorded hash).
 */
export const AUDIT_CHAIN_BREAKS = ['edited', 'missing_before', 'relinked', 'missing_after'] as const;
export type AuditChainBreakKind = (typeof AUDIT_CHAIN_BREAKS)[number];

export type AuditChainBreak = { kind: AuditChainBreakKind; id: number | null; chain_seq: number; message: string };

export type AuditChainReport = {
  intact: boolean;
  checked: number;
  head: { chain_seq: number; row_hash: string };
  first_break: AuditChainBreak | null;
};

const GENESIS = '0'.repeat(64);
const PAGE = 5000;

type ChainRow = { id: string; chain_seq: string; prev_hash: string; row_hash: string; computed: string };

const BREAK_MESSAGES: Record<AuditChainBreakKind, string> = {
  edited: '该记录的内容与其哈希不符：写入后被修改过',
  missing_before: '该记录之前缺少记录：有记录被删除',
  relinked: '该记录的前序哈希与前一条记录不符：前一条记录被修改或替换过',
  missing_after: '链尾缺少记录：最新的记录被删除',
};

function chainBreak(kind: AuditChainBreakKind, id: number | null, seq: number): AuditChainBreak {
  return { kind, id, chain_seq: seq, message: BREAK_MESSAGES[kind] };
}

/** Verifies the whole chain up to the head as it is now (rows committed later are left for the next run). */
export async function verifyAuditChain(deps: Pick<DomainDeps, 'db'>): Promise<AuditChainReport> {
  const head = await sqlOne<{ seq: string; hash: string }>(deps, `SELECT seq::text AS seq, hash FROM admin_audit_chain_head WHERE id = 1`, []);
  const headSeq = Number(head?.seq ?? 0);
  const headHash = head?.hash ?? GENESIS;
  const report = (checked: number, firstBreak: AuditChainBreak | null): AuditChainReport => ({
    intact: firstBreak === null,
    checked,
    head: { chain_seq: headSeq, row_hash: headHash },
    first_break: firstBreak,
  });
  let lastSeq = 0;
  let lastHash = GENESIS;
  let checked = 0;
  for (;;) {
    const rows = await sqlRows<ChainRow>(
      deps,
      `SELECT a.id::text AS id, a.chain_seq::text AS chain_seq, a.prev_hash, a.row_hash, admin_audit_row_hash(a) AS computed
         FROM admin_audit_logs a WHERE a.chain_seq > $1 AND a.chain_seq <= $2 ORDER BY a.chain_seq LIMIT $3`,
      [lastSeq, headSeq, PAGE],
    );
    for (const row of rows) {
      const id = Number(row.id);
      const seq = Number(row.chain_seq);
      if (row.computed !== row.row_hash) return report(checked, chainBreak('edited', id, seq));
      if (seq !== lastSeq + 1) return report(checked, chainBreak('missing_before', id, seq));
      if (row.prev_hash !== lastHash) return report(checked, chainBreak('relinked', id, seq));
      lastSeq = seq;
      lastHash = row.row_hash;
      checked += 1;
    }
    if (rows.length < PAGE) break;
  }
  if (lastSeq !== headSeq || lastHash !== headHash) return report(checked, chainBreak('missing_after', null, lastSeq + 1));
  return report(checked, null);
}

/**
 * The daily verification: the result goes to the system log (category `audit`, with the head's
 * sequence and hash, the record later rewrites are checked against) and to the gauges
 * `admin_audit_chain_intact` / `admin_audit_chain_rows`; a broken chain fails the run.
 */
export async function verifyAuditChainDaily(deps: DomainDeps): Promise<Record<string, unknown>> {
  const result = await verifyAuditChain(deps);
  auditChainIntact.set(result.intact ? 1 : 0);
  auditChainRows.set(result.checked);
  const summary = {
    intact: result.intact,
    checked: result.checked,
    head_seq: result.head.chain_seq,
    head_hash: result.head.row_hash,
    break_kind: result.first_break?.kind ?? null,
    break_id: result.first_break?.id ?? null,
    break_seq: result.first_break?.chain_seq ?? null,
  };
  await recordSystemLog(deps, {
    category: 'audit',
    level: result.intact ? 'info' : 'error',
    event: result.intact ? 'audit.chain.intact' : 'audit.chain.broken',
    message: result.intact
      ? `管理员审计链完整：已校验 ${result.checked} 条，链头序号 ${result.head.chain_seq}`
      : `管理员审计链断裂：第 ${result.first_break?.chain_seq} 号${result.first_break?.id ? `（记录 ${result.first_break.id}）` : ''}，${result.first_break?.message}`,
    detail: summary,
  });
  if (!result.intact) throw new TaskFailure(`管理员审计链断裂：${result.first_break?.message}`, false);
  return summary;
}
