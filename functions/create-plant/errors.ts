/**
 * The one error model of the HTTP edge. A step throws an `HttpError` when the client must be told
 * why; `edge/error-response.ts` turns it, and the store's domain errors, into `{error, message}`.
 * Anything else is unexpected and becomes a 500 that says nothing internal.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    message: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.headers = options.headers ?? {};
  }
}

export class BadRequestError extends HttpError {
  constructor(message: string, cause?: unknown) {
    super(400, message, { cause });
    this.name = 'BadRequestError';
  }
}
