import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { Hono, type MiddlewareHandler } from 'hono';
import { VNC_CONSOLE_PAGE_PATH } from '../../domain/services/console/vnc-tokens.js';
import type { AppEnv } from '../context.js';
import { securityHeaders } from '../middleware/security-headers.js';

/** noVNC's ES modules, served as they are from the npm package (no CDN, no bundling). */
const NOVNC_PREFIX = '/console/novnc/';
const NOVNC_FOLDERS = ['core', 'vendor'];

const PAGE = `<!doctype html>
<html lang="zh-CN">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>VNC 控制台</title>
  <link rel="icon" href="data:," />
  <link rel="stylesheet" href="${VNC_CONSOLE_PAGE_PATH}/app.css" />
</head>
<body data-state="connecting">
  <header>
    <span id="status">正在连接控制台…</span>
    <button id="ctrl-alt-del" type="button" disabled>发送 Ctrl+Alt+Del</button>
  </header>
  <main id="screen"></main>
  <script type="module" src="${VNC_CONSOLE_PAGE_PATH}/app.js"></script>
</body>
</html>`;

const STYLE = `html, body { margin: 0; height: 100%; background: #1f2329; color: #e8eaed; font: 14px/1.5 system-ui, "PingFang SC", "Microsoft YaHei", sans-serif; }
body { display: flex; flex-direction: column; }
header { display: flex; gap: 12px; align-items: center; padding: 6px 12px; background: #2b3038; }
body[data-state="failed"] #status { color: #ff8a80; }
body[data-state="connected"] #status { color: #a5d6a7; }
main { flex: 1; overflow: auto; }
`;

// The public token works once: it leaves the address bar (and the history) before anything else,
// is traded for a relay token, and the websocket goes to our relay. No credential is on this page.
const SCRIPT = `import RFB from '${NOVNC_PREFIX}core/rfb.js';

const status = document.getElementById('status');
const button = document.getElementById('ctrl-alt-del');
let settled = false;
function show(text, state) {
  status.textContent = text;
  document.body.dataset.state = state;
}

const token = new URLSearchParams(location.search).get('token') || '';
history.replaceState(null, '', location.pathname);

async function start() {
  if (!token) return show('缺少控制台令牌，请从服务控制台重新打开', 'failed');
  let answer;
  try {
    const res = await fetch('/api/v2/client/vnc-tokens/' + encodeURIComponent(token), { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'omit' });
    answer = await res.json();
  } catch {
    return show('无法连接服务器，请稍后重试', 'failed');
  }
  if (!answer || answer.code !== 0) return show((answer && answer.message) || '控制台令牌无效', 'failed');
  const url = answer.data.websocket_url + '?token=' + encodeURIComponent(answer.data.relay_token);
  const rfb = new RFB(document.getElementById('screen'), url, { shared: true });
  rfb.addEventListener('connect', () => {
    show('已连接', 'connected');
    button.disabled = false;
  });
  rfb.addEventListener('securityfailure', (event) => {
    settled = true;
    show('连接失败：' + (event.detail.reason || '上游控制台暂不可用'), 'failed');
  });
  rfb.addEventListener('disconnect', () => {
    button.disabled = true;
    if (!settled) show('连接已断开，请从服务控制台重新打开', 'disconnected');
  });
  rfb.addEventListener('desktopname', (event) => {
    document.title = event.detail.name + ' - VNC 控制台';
  });
  button.addEventListener('click', () => rfb.sendCtrlAltDel());
}
start();
`;

/**
 * The page's CSP: scripts and styles from this origin only (noVNC sets element styles through the
 * DOM, which style-src does not govern), the `data:` cursor images noVNC draws, and connections
 * to this origin and the public base URL in both schemes: the token exchange over HTTP and the
 * relay over WebSocket (the public base URL, so the CSP follows it per request).
 */
function consoleCsp(publicBaseUrl: string) {
  const origin = new URL(publicBaseUrl).origin;
  return {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:', 'blob:'],
    connectSrc: ["'self'", origin, origin.replace(/^http/, 'ws')],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  };
}

const pageHeaders: MiddlewareHandler<AppEnv> = (c, next) => securityHeaders(consoleCsp(c.var.deps.config.publicBaseUrl))(c, next);

async function listFiles(root: string, folder: string): Promise<string[]> {
  const entries = await readdir(join(root, folder), { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'));
}

/**
 * The console page (`/console/vnc?token=…`), its script and style, and noVNC's modules from
 * node_modules: only the `.js` files found under the package's `core/` and `vendor/` at the first
 * request, by exact path, so no path reaches anything else.
 */
export function consolePageRoutes() {
  const root = dirname(dirname(createRequire(import.meta.url).resolve('@novnc/novnc')));
  let files: Promise<Set<string>> | null = null;
  const cache = new Map<string, Promise<Buffer>>();
  const script = { 'content-type': 'text/javascript; charset=utf-8' };
  return new Hono<AppEnv>()
    .get(VNC_CONSOLE_PAGE_PATH, pageHeaders, (c) => c.html(PAGE))
    .get(`${VNC_CONSOLE_PAGE_PATH}/app.js`, (c) => c.body(SCRIPT, 200, script))
    .get(`${VNC_CONSOLE_PAGE_PATH}/app.css`, (c) => c.body(STYLE, 200, { 'content-type': 'text/css; charset=utf-8' }))
    .get(`${NOVNC_PREFIX}*`, async (c) => {
      files ??= Promise.all(NOVNC_FOLDERS.map((folder) => listFiles(root, folder))).then((lists) => new Set(lists.flat()));
      const path = c.req.path.slice(NOVNC_PREFIX.length);
      if (!(await files).has(path)) return c.notFound();
      let body = cache.get(path);
      if (!body) {
        body = readFile(join(root, path));
        cache.set(path, body);
      }
      return c.body(new Uint8Array(await body), 200, { ...script, 'cache-control': 'public, max-age=86400' });
    });
}
