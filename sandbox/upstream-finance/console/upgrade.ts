import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { bump, findHostAnywhere, type SandboxState } from '../state.js';
import { serveConsoleSession } from './rfb-server.js';
import { takeConsoleFault, takeConsoleTicket } from './tickets.js';

/** The console websocket: the URL of the `vnc` host action (`/vnc/console?host=…&token=…`). */
export const CONSOLE_PATH = '/vnc/console';

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * The sandbox's console websocket server, for the HTTP server's `upgrade` event: the ticket
 * (token and host of the URL) is taken once; an unknown, used, expired or foreign ticket gets
 * 403, an armed `failConsole(…, 'unavailable')` a 503; then one RFB session (`rfb-server.ts`)
 * with the ticket's password, or a wrong one while `failConsole(…, 'auth_failed')` is armed.
 */
export function createConsoleUpgrade(state: SandboxState) {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 4 * 1024 * 1024 });
  const handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    if (url.pathname !== CONSOLE_PATH) return refuse(socket, '404 Not Found');
    const hostId = Number(url.searchParams.get('host'));
    const ticket = takeConsoleTicket(state, url.searchParams.get('token') ?? '', hostId);
    if (!ticket || !findHostAnywhere(state, hostId)) return refuse(socket, '403 Forbidden');
    const fault = takeConsoleFault(state);
    if (fault === 'unavailable') return refuse(socket, '503 Service Unavailable');
    // Outside the ticket alphabet: never the ticket's password, so the client's answer is wrong.
    const password = fault === 'auth_failed' ? 'WRONG-PW' : ticket.password;
    wss.handleUpgrade(req, socket, head, (ws) => {
      state.console.open.add(ws);
      ws.on('close', () => state.console.open.delete(ws));
      serveConsoleSession(ws, {
        hostId,
        password,
        width: state.console.size.width,
        height: state.console.size.height,
        onAuthenticated: () => bump(state.ledger.consoleSessions, hostId),
        onAuthFailed: () => bump(state.ledger.consoleAuthFailures, hostId),
      });
    });
  };
  return {
    handleUpgrade,
    /** Ends every open console session (the sandbox stops). */
    close() {
      for (const ws of state.console.open) ws.terminate();
      wss.close();
    },
  };
}
