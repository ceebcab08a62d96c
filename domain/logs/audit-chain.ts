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

/** A verified place in the chain: a row's `chain_seq` and `row_hash` (0 and 64 zeros before the first row). */
export type ChainPoint = { chain_seq: number; row_hash: string };

const START: ChainPoint = { chain_seq: 0, row_hash: GENESIS };

/** The last checkpoint the daily verification recorded (`admin_audit_chain_checkpoints`), or null. */
export async function lastAuditCheckpoint(deps: Pick<DomainDeps, 'db'>): Promise<ChainPoint | null> {
  const row = await sqlOne<{ chain_seq: string; row_hash: string }>(
    deps,
    `SELECT chain_seq::text AS chain_seq, row_hash FROM admin_audit_chain_checkpoints ORDER BY id DESC LIMIT 1`,
    [],
  );
  return row ? { chain_seq: Number(row.chain_seq), row_hash: row.row_hash } : null;
}

/**
 * Whether the checkpoint's own row is still what was verified: there, unedited, with the
 * recorded hash. A break answered here is reported at the checkpoint's row.
 */
async function checkpointBreak(deps: Pick<DomainDeps, 'db'>, from: ChainPoint): Promise<AuditChainBreak | null> {
  if (from.chain_seq === 0) return null;
  const row = await sqlOne<{ id: string; row_hash: string; computed: string }>(
    deps,
    `SELECT a.id::text AS id, a.row_hash, admin_audit_row_hash(a) AS computed FROM admin_audit_logs a WHERE a.chain_seq = $1`,
    [from.chain_seq],
  );
  if (!row) return chainBreak('missing_before', null, from.chain_seq);
  if (row.computed !== row.row_hash) return chainBreak('edited', Number(row.id), from.chain_seq);
  if (row.row_hash !== from.row_hash) return chainBreak('relinked', Number(row.id), from.chain_seq);
  return null;
}

/**
 * Verifies the chain up to the head as it is now (rows committed later are left for the next
 * run): the whole chain (`from` omitted: the full check, `GET audit-logs/verify`), or only the
 * rows after a verified point (the daily check, from its last checkpoint), after checking that
 * the point's row still carries the hash it had. `checked` counts the rows walked.
 */
export async function verifyAuditChain(deps: Pick<DomainDeps, 'db'>, from: ChainPoint = START): Promise<AuditChainReport> {
  const head = await sqlOne<{ seq: string; hash: string }>(deps, `SELECT seq::text AS seq, hash FROM admin_audit_chain_head WHERE id = 1`, []);
  const headSeq = Number(head?.seq ?? 0);
  const headHash = head?.hash ?? GENESIS;
  const report = (checked: number, firstBreak: AuditChainBreak | null): AuditChainReport => ({
    intact: firstBreak === null,
    checked,
    head: { chain_seq: headSeq, row_hash: headHash },
    first_break: firstBreak,
  });
  const atCheckpoint = await checkpointBreak(deps, from);
  if (atCheckpoint) return report(0, atCheckpoint);
  if (headSeq < from.chain_seq) return report(0, chainBreak('missing_after', null, headSeq + 1));
  let lastSeq = from.chain_seq;
  let lastHash = from.row_hash;
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
 * The daily verification: from the last checkpoint to the head (each day reads only the rows
 * written since the day before, however long the chain), then a new checkpoint at the head when
 * intact. The result goes to the system log (category `audit`, with the head's sequence and
 * hash, the record later rewrites are checked against) and to the gauges
 * `admin_audit_chain_intact` / `admin_audit_chain_rows`; a broken chain fails the run. Rows
 * before the checkpoint are the full check's (`GET audit-logs/verify`).
 */
export async function verifyAuditChainDaily(deps: DomainDeps): Promise<Record<string, unknown>> {
  const from = (await lastAuditCheckpoint(deps)) ?? START;
  const result = await verifyAuditChain(deps, from);
  if (result.intact && result.head.chain_seq > from.chain_seq) {
    await sqlRows(
      deps,
      `INSERT INTO admin_audit_chain_checkpoints (chain_seq, row_hash, row_id, checked, full_check)
         SELECT $1, $2, (SELECT id FROM admin_audit_logs WHERE chain_seq = $1), $3, $4`,
      [result.head.chain_seq, result.head.row_hash, result.checked, from.chain_seq === 0],
    );
  }
  auditChainIntact.set(result.intact ? 1 : 0);
  auditChainRows.set(from.chain_seq + result.checked);
  const summary = {
    intact: result.intact,
    from_seq: from.chain_seq,
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
      ? `管理员审计链完整：已校验第 ${from.chain_seq + 1} 号起的 ${result.checked} 条，链头序号 ${result.head.chain_seq}`
      : `管理员审计链断裂：第 ${result.first_break?.chain_seq} 号${result.first_break?.id ? `（记录 ${result.first_break.id}）` : ''}，${result.first_break?.message}`,
    detail: summary,
  });
  if (!result.intact) throw new TaskFailure(`管理员审计链断裂：${result.first_break?.message}`, false);
  return summary;
}
