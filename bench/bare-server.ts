// Baseline for the bench: the same database work as the API's routes with nothing around it
// (no framework, no auth, no validation, no ORM). Run as its own process by bench/run.ts.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { USERS_COUNT_SQL, USERS_PAGE_SQL } from './lib/bare-sql.js';
import { bareNotify, barePayBalance } from './money/bare-money.js';

type UserRecord = {
  id: number;
  email: string | null;
  phone: string | null;
  nickname: string;
  status: string;
  email_verified_at: Date | null;
  is_verified: number;
  verification_status: number | null;
  last_login_at: Date | null;
  created_at: Date;
};

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

function envelope(data: unknown) {
  return { code: 0, message: '成功', data, timestamp: Math.floor(Date.now() / 1000) };
}

/**
 * The catalogue baseline answers from memory: `BARE_FIXTURES` names a JSON file mapping a path
 * to the `data` the API answered for the same request (written by bench/run.ts), served in a
 * fresh envelope per request. A POST body is read and parsed, as any JSON server must.
 */
function readFixtures(): Map<string, unknown> {
  const file = process.env.BARE_FIXTURES;
  if (!file) return new Map();
  return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>));
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
}

function startBareServer() {
  const fixtures = readFixtures();
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_MAX ?? 10) });
  pool.on('error', (err) => console.error(`pool error: ${err.message}`));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method === 'GET' && path === '/health') {
      await pool.query('SELECT 1');
      return send(res, 200, envelope({ status: 'ok', database: 'ok' }));
    }
    if (req.method === 'GET' && path === '/users') {
      const [count, rows] = await Promise.all([
        pool.query<{ count: string }>(USERS_COUNT_SQL),
        pool.query<UserRecord>(USERS_PAGE_SQL),
      ]);
      // The same public fields the API's user resource exposes (no password hash).
      const list = rows.rows.map((u) => ({
        id: u.id,
        email: u.email,
        phone: u.phone,
        nickname: u.nickname,
        status: u.status,
        email_verified: u.email_verified_at !== null,
        is_verified: u.is_verified,
        verification_status: u.verification_status,
        last_login_at: u.last_login_at,
        created_at: u.created_at,
      }));
      return send(res, 200, envelope({ list, total: Number(count.rows[0]?.count ?? 0), page: 1, page_size: 20 }));
    }
    if (fixtures.has(path ?? '')) {
      if (req.method === 'POST') await readJsonBody(req);
      return send(res, 200, envelope(fixtures.get(path ?? '')));
    }
    const payBalance = req.method === 'POST' ? /^\/pay-balance\/(\d+)$/.exec(path ?? '') : null;
    if (payBalance) return barePayBalance(pool, Number(payBalance[1]), res, send);
    if (req.method === 'POST' && path === '/notify') return bareNotify(pool, req, res, send);
    send(res, 404, { code: 40400, message: 'not found', data: null, timestamp: Math.floor(Date.now() / 1000) });
  }

  // A database going away under load fails every request: report a few, then only the count.
  let failed = 0;
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      failed += 1;
      if (failed <= 3) console.error(`request failed: ${err instanceof Error ? err.message : String(err)}${failed === 3 ? ' (further failures counted only)' : ''}`);
      if (!res.headersSent) send(res, 500, { code: 50000, message: 'internal error', data: null, timestamp: 0 });
      else res.destroy();
    });
  });
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');

  const stop = () => {
    if (failed > 3) console.error(`${failed} requests failed in total`);
    server.close(() => {
      void pool.end().finally(() => process.exit(0));
    });
    server.closeAllConnections();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

startBareServer();
