/** A configuration or payload problem; the message is Chinese and safe to show. */
export class ReportInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReportInputError';
  }
}
