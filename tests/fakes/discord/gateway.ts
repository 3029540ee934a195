// The fake gateway: Discord's v10 JSON protocol over `ws`, on the same HTTP server as the REST API.
// Sessions outlive their sockets (as on Discord), so a client that RESUMEs gets every dispatch it missed.
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { CallLog, Json } from './call-log.ts';

interface Dispatch {
  op: 0;
  t: string;
  s: number;
  d: Json;
}
interface Session {
  id: string;
  intents: number;
  seq: number;
  log: Dispatch[];
  conn: Conn | null;
}
interface Conn {
  ws: WebSocket;
  session: Session | null;
  acking: boolean;
}

/** Per-session view of an event (intents decide what a session may see); null = not delivered. */
export type Shape = (intents: number) => Json | null;

export interface GatewayOptions {
  server: Server;
  token: string;
  heartbeatIntervalMs: number;
  log: CallLog;
  /** READY's `d` (minus session fields) and the dispatches that follow it, i.e. GUILD_CREATE. */
  onIdentify: () => { ready: Json; then: Array<{ t: string; d: Json }> };
  resumeUrl: () => string;
}

// Close codes after which Discord will not accept a RESUME of the session.
const ENDS_SESSION = new Set([1000, 1001, 4007, 4009]);

export class FakeGateway {
  readonly counts = { identifies: 0, resumes: 0, invalidSessions: 0 };
  private readonly wss: WebSocketServer;
  private readonly sessions = new Map<string, Session>();
  private readonly conns = new Set<Conn>();

  constructor(private readonly opts: GatewayOptions) {
    this.wss = new WebSocketServer({ server: opts.server, path: '/gateway' });
    this.wss.on('connection', (ws, req) => this.accept(ws, req.url ?? '/'));
  }

  get liveConnections(): number {
    return this.conns.size;
  }

  /** Sends `t` to every session (live, or buffered for a later RESUME) with its own increasing seq. */
  dispatch(t: string, shape: Shape): void {
    for (const session of this.sessions.values()) {
      const d = shape(session.intents);
      if (d !== null) this.dispatchTo(session, t, d);
    }
  }

  /** Closes the live sockets abnormally: no code = TCP drop (client sees 1006), else a close frame. */
  drop(code?: number): void {
    for (const conn of this.conns) {
      if (code !== undefined && ENDS_SESSION.has(code) && conn.session) this.sessions.delete(conn.session.id);
      if (code === undefined) conn.ws.terminate();
      else conn.ws.close(code, 'fake discord: connection dropped');
    }
  }

  /** Current connections stop answering op 1, as a half-dead link would; new connections ack again. */
  stopAcking(): void {
    for (const conn of this.conns) conn.acking = false;
  }

  async close(): Promise<void> {
    for (const conn of this.conns) conn.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket, url: string): void {
    const conn: Conn = { ws, session: null, acking: true };
    this.conns.add(conn);
    ws.on('error', () => {}); // a terminated peer may error; the close handler does the bookkeeping
    ws.on('close', (code) => {
      this.conns.delete(conn);
      const s = conn.session;
      if (s?.conn !== conn) return;
      s.conn = null;
      if (ENDS_SESSION.has(code)) this.sessions.delete(s.id);
    });
    const params = new URL(url, 'http://fake').searchParams;
    if (params.get('v') !== '10') return ws.close(4012, 'Invalid API version.');
    // zlib-stream would need a deflating fake; fail loudly instead of sending garbage.
    if (params.has('compress')) return ws.close(4000, 'fake discord: compress=zlib-stream not supported');
    send(ws, { op: 10, d: { heartbeat_interval: this.opts.heartbeatIntervalMs }, s: null, t: null });
    ws.on('message', (raw) => this.onMessage(conn, raw));
  }

  private onMessage(conn: Conn, raw: RawData): void {
    let p: Json;
    try {
      p = JSON.parse(String(raw));
    } catch {
      return conn.ws.close(4002, 'Error while decoding payload.');
    }
    const record = (route: string, body: Json = p.d): void =>
      this.opts.log.record({
        route,
        method: 'WS',
        path: `op ${p.op}`,
        params: {},
        query: {},
        body,
        headers: {},
        status: 0,
        at: Date.now(),
      });
    if (p.op === 1) {
      if (conn.acking) send(conn.ws, { op: 11 });
      return record('GATEWAY HEARTBEAT');
    }
    if (p.op === 2) return this.identify(conn, p.d ?? {}, record);
    if (p.op === 6) return this.resume(conn, p.d ?? {}, record);
    if (!conn.session) return conn.ws.close(4003, 'Not authenticated.');
    if ([3, 4, 8, 31].includes(p.op)) return record(`GATEWAY OP ${p.op}`); // presence, voice, member requests
    conn.ws.close(4001, 'Unknown opcode.');
  }

  private identify(conn: Conn, d: Json, record: (route: string) => void): void {
    if (conn.session) return conn.ws.close(4005, 'Already authenticated.');
    if (d.token !== this.opts.token) return conn.ws.close(4004, 'Authentication failed.');
    if (d.compress === true) return conn.ws.close(4000, 'fake discord: payload compression not supported');
    const session: Session = {
      id: randomBytes(16).toString('hex'),
      intents: Number(d.intents ?? 0),
      seq: 0,
      log: [],
      conn,
    };
    this.sessions.set(session.id, session);
    conn.session = session;
    this.counts.identifies++;
    const { ready, then } = this.opts.onIdentify();
    this.dispatchTo(session, 'READY', {
      ...ready,
      session_id: session.id,
      resume_gateway_url: this.opts.resumeUrl(),
      shard: d.shard ?? [0, 1],
    });
    for (const e of then) this.dispatchTo(session, e.t, e.d);
    record('GATEWAY IDENTIFY');
  }

  private resume(conn: Conn, d: Json, record: (route: string) => void): void {
    if (d.token !== this.opts.token) return conn.ws.close(4004, 'Authentication failed.');
    const session = this.sessions.get(String(d.session_id));
    if (!session) {
      this.counts.invalidSessions++;
      send(conn.ws, { op: 9, d: false, s: null, t: null }); // not resumable: client must IDENTIFY again
      return record('GATEWAY INVALID_SESSION');
    }
    if (typeof d.seq !== 'number' || d.seq > session.seq) return conn.ws.close(4007, 'Invalid seq.');
    if (session.conn && session.conn !== conn) session.conn.ws.terminate(); // one socket per session
    session.conn = conn;
    conn.session = session;
    this.counts.resumes++;
    for (const e of session.log) if (e.s > d.seq) send(conn.ws, e);
    this.dispatchTo(session, 'RESUMED', {});
    record('GATEWAY RESUME');
  }

  private dispatchTo(session: Session, t: string, d: Json): void {
    const e: Dispatch = { op: 0, t, s: ++session.seq, d };
    session.log.push(e);
    if (session.conn) send(session.conn.ws, e);
  }
}

function send(ws: WebSocket, payload: Json): void {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(payload));
}
