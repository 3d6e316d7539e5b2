import { createError, HttpError } from '@middy/util';

/**
 * The one family of client-facing errors: Middy's own `HttpError`, the class its body parser
 * already throws, so the bundle carries one. A step throws one when the client must be told why;
 * `error-response.ts` turns it, and the domain errors of `plants/` and `auth/`, into
 * `{error, message}`. Anything else is unexpected and becomes a 500 that says nothing internal.
 */
export { createError, HttpError };

/**
 * `HttpError`'s constructor as @middy/util's JavaScript defines it; its type declarations leave it
 * out, so a subclass could not call it with a status without this view.
 */
export const MiddyHttpError = HttpError as unknown as new (
  status: number,
  message: string,
  options?: { cause?: unknown },
) => HttpError;

/** The request is refused as sent (400): the message says what to change. */
export class BadRequestError extends MiddyHttpError {
  constructor(message: string, cause?: unknown) {
    super(400, message, { cause });
  }
}
