import { signRequest } from '../aws/aws-signature-v4.ts';
import type { Config } from '../config.ts';
import { parseNewPlant } from '../plants/new-plant.ts';

/** A NewPlant the schema accepts (checked by its test): parsing it takes the schema's whole path. */
export const warmUpSample = '{"id":1,"name":"Fern","tag":"indoor"}';

/**
 * A cold request's own first-time CPU, spent on a sample while the key set is on its way instead
 * of between the token's verdict and the write: the NewPlant schema's first parse (zod compiles
 * it) and the first SigV4 signature (Node loads its HMAC; the day's signing key is derived and
 * kept). About 5 ms, measured by `npm run bench` (cold request). Nothing is sent, and nothing
 * is thrown: a warm-up that fails only leaves that work to the first request.
 */
export function warmUpRequestPath(dynamodb: Config['dynamodb']): void {
  try {
    parseNewPlant(JSON.parse(warmUpSample), warmUpSample);
    signRequest(
      {
        method: 'POST',
        url: dynamodb.endpoint,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: warmUpSample,
      },
      dynamodb.credentials,
      { region: dynamodb.region, service: 'dynamodb' },
    );
  } catch {
    // The first request does the same work, and answers for it.
  }
}
