import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RfbHandshakeError } from '../../lib/rfb/protocol.js';
import { CONSOLE_PICTURE } from '../../sandbox/upstream-finance/console/picture.js';
import { startUpstreamFinanceSandbox } from '../../sandbox/upstream-finance/server.js';
import { DEFAULT_SANDBOX_ACCOUNT } from '../../sandbox/upstream-finance/state.js';
import type { UpstreamFinanceSandbox } from '../../sandbox/upstream-finance/types.js';
import { connectRfb, framePixel, UpgradeRefused } from '../helpers/rfb-client.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const HOST = 5001;

let sandbox: UpstreamFinanceSandbox;
let jwt: string;

beforeAll(async () => {
  sandbox = await startUpstreamFinanceSandbox({ console: { width: 64, height: 48 } });
  const login = await fetch(`${sandbox.baseUrl}/finance_api_login`, {
    method: 'POST',
    headers: FORM,
    body: new URLSearchParams({ username: DEFAULT_SANDBOX_ACCOUNT.username, password: DEFAULT_SANDBOX_ACCOUNT.apiKey }).toString(),
  });
  jwt = ((await login.json()) as { jwt: string }).jwt;
});
afterAll(() => sandbox?.stop());

/** The `vnc` host action: the console URL (as a websocket URL) and the session's password. */
async function ticket(hostId = HOST): Promise<{ url: string; pass: string }> {
  const res = await fetch(`${sandbox.baseUrl}/provision/default`, {
    method: 'POST',
    headers: { ...FORM, authorization: `Bearer ${jwt}` },
    body: new URLSearchParams({ id: String(hostId), func: 'vnc' }).toString(),
  });
  const body = (await res.json()) as { status: number; data: { url: string; pass: string } };
  expect(body.status).toBe(200);
  return { url: body.data.url.replace(/^http/, 'ws'), pass: body.data.pass };
}

describe('upstream finance sandbox console', () => {
  it('speaks RFB 3.8 with VNC Authentication and shows four coloured quadrants', async () => {
    const { url, pass } = await ticket();
    expect(url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/vnc/console\\?host=${HOST}&token=[0-9a-f]{24}$`));
    expect(pass).toMatch(/^[A-Za-z0-9]{8}$/);
    const session = await connectRfb(url, { password: pass });
    expect(session.serverInit).toMatchObject({ width: 64, height: 48, name: `sandbox host ${HOST}`, format: { bitsPerPixel: 32, trueColour: true } });
    const frame = await session.requestFrame();
    expect([framePixel(frame, 5, 5), framePixel(frame, 60, 5), framePixel(frame, 5, 40), framePixel(frame, 60, 40)]).toEqual([
      CONSOLE_PICTURE.topLeft,
      CONSOLE_PICTURE.topRight,
      CONSOLE_PICTURE.bottomLeft,
      CONSOLE_PICTURE.bottomRight,
    ]);
    // noVNC asks for RGBX: the picture is re-encoded in the client's format.
    session.setPixelFormat({ bitsPerPixel: 32, depth: 24, bigEndian: false, trueColour: true, redMax: 255, greenMax: 255, blueMax: 255, redShift: 0, greenShift: 8, blueShift: 16 });
    const rgbx = await session.requestFrame();
    expect([...rgbx.pixels.subarray(0, 4)]).toEqual([...CONSOLE_PICTURE.topLeft, 0]);
    session.close();
    await session.closed;
    expect(sandbox.control.ledger().consoleSessions[HOST]).toBe(1);
  });

  it('takes a ticket once: a second connection with the same URL gets 403', async () => {
    const { url, pass } = await ticket();
    const first = await connectRfb(url, { password: pass });
    first.close();
    await expect(connectRfb(url, { password: pass })).rejects.toMatchObject({ status: 403 });
    await expect(connectRfb(url.replace(/token=\w+/, 'token=000000000000000000000000'), { password: pass })).rejects.toBeInstanceOf(UpgradeRefused);
    await expect(connectRfb(url.replace(`host=${HOST}`, 'host=5002'), { password: pass })).rejects.toMatchObject({ status: 403 });
  });

  it('refuses a wrong password with a failed security result', async () => {
    const before = sandbox.control.ledger().consoleAuthFailures[HOST] ?? 0;
    const { url } = await ticket();
    await expect(connectRfb(url, { password: 'not-it!!' })).rejects.toMatchObject({ kind: 'auth_failed' });
    expect(sandbox.control.ledger().consoleAuthFailures[HOST]).toBe(before + 1);
  });

  it('fails on command: unavailable (503) and a refused authentication', async () => {
    sandbox.control.failConsole(1, 'unavailable');
    const first = await ticket();
    await expect(connectRfb(first.url, { password: first.pass })).rejects.toMatchObject({ status: 503 });
    sandbox.control.failConsole(1, 'auth_failed');
    const second = await ticket();
    const refused = await connectRfb(second.url, { password: second.pass }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RfbHandshakeError);
    const third = await ticket();
    const session = await connectRfb(third.url, { password: third.pass });
    session.close();
    expect(sandbox.control.consolePasswords()).toContain(third.pass);
  });
});
