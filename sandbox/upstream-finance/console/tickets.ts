import { randomBytes, randomInt } from 'node:crypto';
import type { SandboxState } from '../state.js';
import type { ConsoleFaultMode, ConsoleTicket } from '../types.js';

/** How long a console ticket of the `vnc` host action can be used, once. */
export const CONSOLE_TICKET_TTL_MS = 60_000;

const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** An 8-character VNC password (VNC Authentication uses at most 8 bytes of it). */
function consolePassword(): string {
  let out = '';
  for (let i = 0; i < 8; i += 1) out += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return out;
}

/** A one-time console ticket: the token in the console URL and the VNC password of the session. */
export function issueConsoleTicket(state: SandboxState, hostId: number): { token: string; password: string } {
  const now = Date.now();
  for (const [token, ticket] of state.console.tickets) if (ticket.expiresAt <= now) state.console.tickets.delete(token);
  const token = randomBytes(12).toString('hex');
  const password = consolePassword();
  state.console.tickets.set(token, { hostId, password, expiresAt: now + CONSOLE_TICKET_TTL_MS });
  state.console.issuedPasswords.push(password);
  return { token, password };
}

/** Takes the ticket (a second connection with the same token finds none); null when unknown, expired or for another host. */
export function takeConsoleTicket(state: SandboxState, token: string, hostId: number): ConsoleTicket | null {
  const ticket = state.console.tickets.get(token);
  if (!ticket) return null;
  state.console.tickets.delete(token);
  return ticket.hostId === hostId && ticket.expiresAt > Date.now() ? ticket : null;
}

/** The armed console fault for this connection, if any (one use of `failConsole(count, mode)`). */
export function takeConsoleFault(state: SandboxState): ConsoleFaultMode | null {
  const fault = state.console.fault;
  if (!fault || fault.remaining <= 0) return null;
  fault.remaining -= 1;
  return fault.mode;
}
