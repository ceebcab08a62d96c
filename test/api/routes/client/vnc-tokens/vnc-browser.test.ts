import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_PICTURE } from '../../../../../sandbox/upstream-finance/console/picture.js';
import { registerClient, type TestClient } from '../../../../helpers/billing.js';
import { ensureChromium } from '../../../../helpers/chromium.js';
import { createService, type ServicesPlatform, startServicesPlatform, takeHost } from '../../../../helpers/services.js';
import { openConsole } from '../../../../helpers/vnc.js';

/**
 * Debian's Chromium (test/helpers/chromium.ts: installed once where the run is root with apt-get;
 * otherwise the file is skipped with one line saying why). Playwright downloads nothing.
 */
const { path: CHROMIUM } = await ensureChromium();
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/** The page's types, for code that runs in the browser (this project's TypeScript has no DOM library). */
type PageCanvas = { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null };
type PageGlobal = { document: { querySelector(selector: string): PageCanvas | null } };

/** Runs in the page: the noVNC canvas's size and the colour at each point, or null before the picture is complete. */
function readCanvas(points: number[][]): { size: number[]; colours: number[][] } | null {
  const canvas = (globalThis as unknown as PageGlobal).document.querySelector('#screen canvas');
  const context = canvas?.getContext('2d');
  if (!canvas || !context || canvas.width < 320) return null;
  const colours = points.map(([x = 0, y = 0]) => Array.from(context.getImageData(x, y, 1, 1).data));
  // Alpha 0: that pixel has not been drawn yet.
  if (colours.some((c) => c[3] !== 255)) return null;
  return { size: [canvas.width, canvas.height], colours: colours.map((c) => c.slice(0, 3)) };
}

describe.skipIf(CHROMIUM === null)('VNC console page in a real browser', () => {
  let platform: ServicesPlatform;
  let client: TestClient;
  let browser: Browser;

  beforeAll(async () => {
    platform = await startServicesPlatform();
    client = await registerClient(platform);
    browser = await chromium.launch({ executablePath: CHROMIUM ?? undefined, headless: true, args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
  });

  it('shows the sandbox console’s picture on the noVNC canvas, with no credential reaching the page', async () => {
    const hostId = takeHost(platform);
    const serviceId = await createService(platform, { userId: client.id, productId: platform.productId, hostId });
    const opened = await openConsole(platform, client.token, serviceId);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    const frames: string[] = [];
    const bodies: string[] = [];
    page.on('websocket', (socket) => socket.on('framereceived', (frame) => frames.push(Buffer.from(frame.payload).toString('latin1'))));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      void response.text().then((text) => bodies.push(text), () => undefined);
    });

    await page.goto(opened.console_url);
    await page.waitForSelector('body[data-state="connected"]', { timeout: 20_000 });
    const quadrants = [
      [80, 60],
      [240, 60],
      [80, 180],
      [240, 180],
    ];
    // The first framebuffer update may still be on its way when the page says it is connected.
    await page.waitForFunction(readCanvas, [[240, 180]], { timeout: 20_000 });
    const pixels = await page.evaluate(readCanvas, quadrants);
    expect(pixels).toEqual({ size: [320, 240], colours: [CONSOLE_PICTURE.topLeft, CONSOLE_PICTURE.topRight, CONSOLE_PICTURE.bottomLeft, CONSOLE_PICTURE.bottomRight].map((c) => [...c]) });
    expect(await page.title()).toBe(`sandbox host ${hostId} - VNC 控制台`);
    // The public token left the address bar (and the history) at once.
    expect(page.url()).toBe(`${platform.baseUrl}/console/vnc`);
    expect(problems).toEqual([]);

    await page.close();
    const passwords = platform.sandbox.control.consolePasswords();
    expect(passwords.length).toBeGreaterThan(0);
    expect(frames.length).toBeGreaterThan(3);
    for (const password of passwords) {
      expect(frames.some((f) => f.includes(password))).toBe(false);
      expect(bodies.some((b) => b.includes(password))).toBe(false);
    }
    expect(bodies.some((b) => b.includes('/vnc/console?host='))).toBe(false);
  });

  it('shows a Chinese message for a token that was already used', async () => {
    const serviceId = await createService(platform, { userId: client.id, productId: platform.productId, hostId: takeHost(platform) });
    const opened = await openConsole(platform, client.token, serviceId);
    expect((await platform.api.get(`/api/v2/client/vnc-tokens/${opened.token}`)).body.code).toBe(0);
    const page = await browser.newPage();
    await page.goto(opened.console_url);
    await page.waitForSelector('body[data-state="failed"]', { timeout: 20_000 });
    expect(await page.textContent('#status')).toBe('控制台令牌无效、已使用或已过期，请重新打开控制台');
    await page.close();
  });
});
