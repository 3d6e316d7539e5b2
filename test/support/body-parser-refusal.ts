import httpJsonBodyParser from '@middy/http-json-body-parser';
import { fakeEvent } from './fake-event.ts';
import { middlewareRequest } from './middleware-request.ts';

/** The error the installed @middy/http-json-body-parser throws for `body`, as it throws it. */
export async function bodyParserRefusalOf(body: string): Promise<Error> {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true });
  try {
    await parser.before?.(middlewareRequest(fakeEvent({ body })));
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error(`the body parser accepted ${body}`);
}
