import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
// Only the folder path: the package's main module would load the whole swagger-ui bundle at startup.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import type { AppEnv } from '../context.js';
import { securityHeaders } from '../middleware/security-headers.js';

const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;

// In a file of its own, not inline: the page's CSP allows scripts from this origin only.
const INIT_SCRIPT = "window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n";

const page = `<!doctype html>
<html lang="zh-CN">
<head>
  <meta charset="utf-8" />
  <title>主机转售平台 API 参考</title>
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/assets/init.js"></script>
</body>
</html>`;

/**
 * The page's CSP: scripts and styles only from this origin (swagger-ui sets element styles through
 * the DOM, which style-src does not govern), the `data:` icons of swagger-ui.css, and requests
 * ("Try it out") to this origin and the API's public URL, which the OpenAPI document names as server.
 */
function docsCsp(publicBaseUrl: string) {
  return {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:'],
    connectSrc: ["'self'", new URL(publicBaseUrl).origin],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  };
}

/** The API reference page, served with its assets from node_modules: it works offline. */
export function docsRoutes(publicBaseUrl: string) {
  const dir = getAbsoluteFSPath();
  const cache = new Map<string, Promise<Buffer>>();
  return new Hono<AppEnv>()
    .get('/api/docs', securityHeaders(docsCsp(publicBaseUrl)), (c) => c.html(page))
    .get('/api/docs/assets/init.js', (c) => c.body(INIT_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }))
    .get('/api/docs/assets/:file', async (c) => {
      const file = c.req.param('file') as (typeof ASSETS)[number];
      if (!ASSETS.includes(file)) return c.notFound();
      let body = cache.get(file);
      if (!body) {
        body = readFile(join(dir, file));
        cache.set(file, body);
      }
      const type = file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
      return c.body(new Uint8Array(await body), 200, { 'content-type': type, 'cache-control': 'public, max-age=86400' });
    });
}
