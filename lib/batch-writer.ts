/**
 * Rows written off the request path: queued in memory and inserted together, when the batch is
 * full or a short interval has passed, one statement per batch. When a batch is refused, its
 * rows are tried one by one, so a row the database refuses cannot take the others with it; a
 * refused row is reported and dropped (a log must never break or slow a request); rows past
 * `maxQueue` are dropped and counted. `close()` writes what is queued.
 */
export type BatchWriter<T> = {
  push(row: T): void;
  /** Writes what is queued now (tests, shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Rows dropped since start (queue full or insert failed). */
  dropped(): number;
};

export type BatchWriterOptions<T> = {
  write(rows: T[]): Promise<void>;
  onError(err: unknown, rows: number): void;
  maxBatch?: number;
  intervalMs?: number;
  maxQueue?: number;
};

export function createBatchWriter<T>(options: BatchWriterOptions<T>): BatchWriter<T> {
  const maxBatch = options.maxBatch ?? 500;
  const intervalMs = options.intervalMs ?? 1000;
  const maxQueue = options.maxQueue ?? 20_000;
  let queue: T[] = [];
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let droppedRows = 0;
  let closed = false;

  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      try {
        await options.write(batch);
      } catch (err) {
        if (batch.length === 1) {
          droppedRows += 1;
          options.onError(err, 1);
          continue;
        }
        // One bad row must not take the others with it: each is tried alone, only the refused are dropped.
        for (const row of batch) {
          try {
            await options.write([row]);
          } catch (rowErr) {
            droppedRows += 1;
            options.onError(rowErr, 1);
          }
        }
      }
    }
  };
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    running = running.then(drain);
    return running;
  };
  const schedule = () => {
    if (timer || closed) return;
    timer = setTimeout(() => void flush(), intervalMs);
    timer.unref();
  };
  return {
    push(row) {
      if (queue.length >= maxQueue) {
        droppedRows += 1;
        return;
      }
      queue.push(row);
      if (queue.length >= maxBatch) void flush();
      else schedule();
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
    dropped: () => droppedRows,
  };
}
