import { describe, expect, it } from 'vitest';
import { signRequest } from '../../../functions/aws/aws-signature-v4.ts';
import { warmUpRequestPath, warmUpSample } from '../../../functions/create-plant/warm-up.ts';
import { parseNewPlant } from '../../../functions/plants/new-plant.ts';

const dynamodb = {
  endpoint: new URL('https://dynamodb.eu-west-1.amazonaws.com'),
  region: 'eu-west-1',
  credentials: {
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  },
};

describe('warmUpRequestPath', () => {
  it('warms the schema with a sample it accepts (a rejected sample would warm nothing)', () => {
    const plant = parseNewPlant(JSON.parse(warmUpSample), warmUpSample);

    expect(plant.id).toBe('1');
  });

  it('leaves the signatures of later requests as they would be without it', () => {
    const request = {
      method: 'POST',
      url: dynamodb.endpoint,
      headers: { 'content-type': 'application/x-amz-json-1.0' },
      body: '{}',
    };
    const at = new Date('2026-11-23T12:00:00Z');
    const scope = { region: dynamodb.region, service: 'dynamodb' };
    const before = signRequest(request, dynamodb.credentials, scope, at);

    warmUpRequestPath(dynamodb);

    expect(signRequest(request, dynamodb.credentials, scope, at)).toStrictEqual(before);
  });

  it('never throws: a warm-up that fails leaves its work to the first request', () => {
    const broken = {
      ...dynamodb,
      credentials: undefined as unknown as typeof dynamodb.credentials,
    };

    expect(() => warmUpRequestPath(broken)).not.toThrow();
  });
});
