import { RefusedBeforeEffect } from '../effects/index.ts';
import { KazmaError } from '../errors.ts';

/**
 * The egress guard refused a connection: the address is internal (loopback, private, link-local, …),
 * the URL is spelled oddly, or it carries a secret. Nothing was sent to the refused address. It is a
 * {@link RefusedBeforeEffect}, so the model reads "refused: …" and may try another URL.
 */
export class EgressRefused extends RefusedBeforeEffect {
  readonly url: string;
  constructor(url: string, reason: string) {
    super(reason);
    this.url = url;
  }
}

/**
 * A web request went out and failed: the server said no, the answer was too big or of the wrong type, or the transport
 * broke.
 */
export class WebFetchError extends KazmaError {
  /** The HTTP status when the server answered; undefined for a transport failure or a timeout. */
  readonly status: number | undefined;
  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super('web_fetch_failed', message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
  }
}
