/**
 * In-process effects of a commit (the counters of `lib/metrics.ts`, dropping this process's cached
 * catalogue and principals again): they run once the
 * transaction has committed, never when it rolls back or its COMMIT fails. `inTransaction`
 * (`db/sql.ts`) and every managed Sequelize transaction (`db/sequelize.ts`) open a list of their
 * own and run it after COMMIT; a nested (savepoint) transaction adds to its outermost one.
 * Sequelize's own `afterCommit` is not used: it also runs when the COMMIT fails.
 *
 * Only for effects whose loss is harmless (a process killed between COMMIT and the hook loses a
 * count): anything the commit promises goes to the outbox (docs/CONVENTIONS.md "What follows a
 * commit").
 */
type Hooks = Array<() => void>;

const open = new WeakMap<object, Hooks>();

/** The outermost transaction of a Sequelize savepoint (its `parent` chain); any other transaction itself. */
function outermost(tx: object): object {
  let at = tx as { parent?: object | null };
  while (at.parent) at = at.parent as { parent?: object | null };
  return at;
}

/** Starts the list of a transaction that has just begun. */
export function openCommitHooks(tx: object): void {
  open.set(tx, []);
}

/** Ends the list: runs it when the transaction committed, drops it otherwise. A hook that throws is skipped. */
export function closeCommitHooks(tx: object, committed: boolean): void {
  const hooks = open.get(tx);
  open.delete(tx);
  if (!committed || !hooks) return;
  for (const hook of hooks) {
    try {
      hook();
    } catch {
      // A counter never fails a commit that has happened.
    }
  }
}

/**
 * Runs `work` once `tx` commits; without a transaction (an autocommit statement, already
 * committed when its promise resolved) at once. Call it after the statement whose effect it
 * follows. A transaction not opened by `inTransaction` or a managed Sequelize transaction is a
 * mistake of the caller, refused.
 */
export function onCommit(tx: object | undefined | null, work: () => void): void {
  if (!tx) {
    work();
    return;
  }
  const hooks = open.get(outermost(tx));
  if (!hooks) throw new Error('onCommit: not an open transaction of inTransaction or sequelize.transaction');
  hooks.push(work);
}
