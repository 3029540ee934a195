import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { StartupError } from '../../core/errors.ts';
import type { Logger } from '../../core/log/index.ts';
import { healthRoutes, type ReadinessCheck } from './health.ts';

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port (tests); the chosen port is logged as `http listening`. */
  port: number;
  checks: Record<string, ReadinessCheck>;
  logger: Logger;
  /**
   * What a taken `port` means: `stop` (default; `kazma start`) fails naming http.port; `free-port`
   * (`kazma chat`, whose chat is the terminal) listens on any free port and says so once — unless
   * `receivers` is not empty, since a platform's events arrive on the configured port only.
   */
  whenTaken?: 'stop' | 'free-port';
  /** The keys that make a platform receive on this port (`slack.mode http`), named when it is taken. */
  receivers?: readonly string[];
}

/**
 * The one HTTP server: health now; webhooks and the approvals API mount on `app` before `listen()`
 * (hono builds its router on the first request, after which routes cannot be added).
 */
export class HttpServer {
  readonly app = new Hono();
  #server: ReturnType<typeof serve> | undefined;
  #port = 0;

  constructor(private readonly options: HttpServerOptions) {
    this.app.route('/', healthRoutes(options.checks));
  }

  get port(): number {
    return this.#port;
  }

  async listen(): Promise<number> {
    const { whenTaken = 'stop', receivers = [], port } = this.options;
    const server = await this.#serve(port).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE' || whenTaken !== 'free-port' || receivers.length > 0)
        throw listenError(error, this.options);
      const instead = await this.#serve(0);
      const free = (instead.address() as AddressInfo).port;
      this.options.logger.warn(
        { port, instead: free },
        `http.port ${port} is in use: this chat serves its web page and API on port ${free} instead`,
      );
      return instead;
    });
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
    this.options.logger.info({ host: this.options.host, port: this.#port }, 'http listening');
    return this.#port;
  }

  #serve(port: number): Promise<ReturnType<typeof serve>> {
    return new Promise((resolve, reject) => {
      const s = serve({ fetch: this.app.fetch, hostname: this.options.host, port }, () => resolve(s));
      s.once('error', reject);
    });
  }

  /** Stops accepting connections; idle keep-alive sockets are closed so close() cannot hang. */
  close(): Promise<void> {
    const server = this.#server;
    if (!server) return Promise.resolve();
    return new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ('closeIdleConnections' in server) server.closeIdleConnections();
      setTimeout(() => ('closeAllConnections' in server ? server.closeAllConnections() : undefined), 2000).unref();
    });
  }
}

/**
 * Why the server could not listen, naming `http.port` (or `http.host`) and the fix; other errors unchanged.
 * A port in use is the common one: another Kazma, or another program, already serves it.
 */
function listenError(error: Error, at: { host: string; port: number; receivers?: readonly string[] }): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${at.host}:${at.port}`;
  const receivers = at.receivers?.length ? ` (${at.receivers.join(', ')} receives on it)` : '';
  if (code === 'EADDRINUSE')
    return new StartupError(
      'http_listen_failed',
      `http.port ${at.port} is already in use on ${at.host} (another Kazma, or another program, listens there): ` +
        `stop it, or set http.port in kazma.yaml to a free port${receivers}`,
      { cause: error },
    );
  if (code === 'EACCES')
    return new StartupError(
      'http_listen_failed',
      `http.port ${at.port} needs privileges Kazma does not have (ports below 1024 do): set http.port to 1024 or above`,
      { cause: error },
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new StartupError(
      'http_listen_failed',
      `http.host ${at.host} is not an address of this machine (cannot listen on ${where}): set http.host to ` +
        '127.0.0.1, 0.0.0.0 or one of its addresses',
      { cause: error },
    );
  return error;
}
