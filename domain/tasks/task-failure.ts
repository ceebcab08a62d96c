/** A task handler's failure with a message safe to store and show; `retryable` drives Temporal retries. */
export class TaskFailure extends Error {
  override name = 'TaskFailure';
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean) {
    super(message);
    this.retryable = retryable;
  }
}
