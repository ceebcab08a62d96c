/**
 * How long a regular activity that may run long can go without a heartbeat before the server
 * fails its attempt and retries it elsewhere: a worker that died is noticed after this, not after
 * the activity's start-to-close timeout (minutes for a task). Every activity beats every 5 s
 * while it runs (activities/observe-cancellation.ts `HEARTBEAT_EVERY_MS`), and the server passes a
 * cancellation it was asked for back on a heartbeat. Adding it changes no command of a recorded
 * history (a timeout is not compared on replay).
 */
export const ACTIVITY_HEARTBEAT_TIMEOUT = '30 seconds';
