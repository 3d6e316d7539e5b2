/**
 * The one error a client is told about: its status, a message safe to show, and the headers the
 * answer needs (`WWW-Authenticate`, `Retry-After`). What went wrong underneath travels in `cause`,
 * for the log only. A step throws one when the client must be told why; `mapErrors` answers it,
 * and answers a domain error by turning it into one through its table. Anything else is a 500
 * that says nothing internal.
 */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    statusCode: number,
    message: string,
    options: { readonly cause?: unknown; readonly headers?: Readonly<Record<string, string>> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.headers = options.headers ?? {};
  }
}
