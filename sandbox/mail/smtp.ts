import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { decodeHeader, parseMail } from './mime.js';
import type { MailState } from './state.js';

const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;

function authError(): Error {
  return Object.assign(new Error('Invalid username or password'), { responseCode: 535 });
}

async function readStream(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

function store(state: MailState, raw: Buffer, session: SMTPServerSession): void {
  const parsed = parseMail(raw);
  const mailFrom = session.envelope.mailFrom;
  state.messages.push({
    id: state.nextId++,
    from: decodeHeader(parsed.headers.get('from') ?? ''),
    envelope_from: mailFrom ? mailFrom.address : '',
    to: session.envelope.rcptTo.map((r) => r.address),
    subject: decodeHeader(parsed.headers.get('subject') ?? ''),
    text: parsed.text,
    html: parsed.html,
    message_id: parsed.headers.get('message-id') ?? null,
    account_user: session.user ?? null,
    received_at: new Date().toISOString(),
  });
}

/**
 * An SMTP sink: AUTH PLAIN/LOGIN against the configured users (required), no STARTTLS
 * (plain text on loopback), messages parsed and kept in memory.
 */
export function createSmtpSink(state: MailState): SMTPServer {
  return new SMTPServer({
    name: 'sandbox.mail.local',
    banner: 'sandbox mail sink',
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    size: MAX_MESSAGE_BYTES,
    closeTimeout: 500,
    logger: false,
    onAuth(auth, _session, callback) {
      const user = auth.username ?? '';
      const known = Object.hasOwn(state.users, user) && state.users[user] === auth.password;
      if (!known || state.rejectAuth.has('*') || state.rejectAuth.has(user)) {
        state.counters.auth_failed += 1;
        callback(authError());
        return;
      }
      state.counters.auth_ok += 1;
      callback(null, { user });
    },
    onData(stream, session, callback) {
      readStream(stream).then(
        (raw) => {
          if (state.rejectMessages > 0) {
            state.rejectMessages -= 1;
            state.counters.rejected += 1;
            callback(Object.assign(new Error('Message rejected by policy'), { responseCode: 554 }));
            return;
          }
          store(state, raw, session);
          state.counters.accepted += 1;
          callback(null, 'queued');
        },
        (err: unknown) => callback(err instanceof Error ? err : new Error('read failed')),
      );
    },
  });
}
