import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envNames, loadConfig } from '../../functions/config.ts';

const lambdaEnv = {
  PLANTS_TABLE_NAME: 'PlantStore-PlantsTable-1A2B3C',
  AUTH_ISSUER: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example/',
  AUTH_AUDIENCE: '1example23clientid',
  AUTH_SCOPE: 'plants/write',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'session',
};

describe('loadConfig', () => {
  it('reads a Lambda environment with the documented defaults', () => {
    const config = loadConfig(lambdaEnv);

    expect(config.tableName).toBe('PlantStore-PlantsTable-1A2B3C');
    expect(config.auth).toStrictEqual({
      issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example/',
      jwksUrl: new URL(
        'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example/.well-known/jwks.json',
      ),
      audiences: ['1example23clientid'],
      requiredScope: 'plants/write',
    });
    expect(config.dynamodb.endpoint.href).toBe('https://dynamodb.eu-west-1.amazonaws.com/');
    expect(config.dynamodb.credentials.sessionToken).toBe('session');
    expect(config.dynamodb.attemptTimeoutMs).toBeUndefined();
  });

  it('takes the overrides: JWKS URL, audiences, scope and the DynamoDB endpoint', () => {
    const config = loadConfig({
      ...lambdaEnv,
      AUTH_JWKS_URL: 'https://issuer.example/keys',
      AUTH_AUDIENCE: ' api, client-1 ,,',
      AUTH_SCOPE: 'garden/write',
      AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:8000',
      DYNAMODB_ATTEMPT_TIMEOUT_MS: '10000',
    });

    expect(config.auth.jwksUrl.href).toBe('https://issuer.example/keys');
    expect(config.auth.audiences).toStrictEqual(['api', 'client-1']);
    expect(config.auth.requiredScope).toBe('garden/write');
    expect(config.dynamodb.endpoint.href).toBe('http://127.0.0.1:8000/');
    expect(config.dynamodb.attemptTimeoutMs).toBe(10_000);
  });

  it.each([
    ['PLANTS_TABLE_NAME', { PLANTS_TABLE_NAME: undefined }, 'PLANTS_TABLE_NAME is not set'],
    ['AUTH_ISSUER', { AUTH_ISSUER: '' }, 'AUTH_ISSUER is not set'],
    ['AUTH_ISSUER', { AUTH_ISSUER: 'not a url' }, 'AUTH_ISSUER is not a valid URL: not a url'],
    ['AUTH_AUDIENCE', { AUTH_AUDIENCE: undefined }, 'AUTH_AUDIENCE is not set'],
    ['AUTH_AUDIENCE', { AUTH_AUDIENCE: ' ' }, 'AUTH_AUDIENCE is not set'],
    ['AUTH_AUDIENCE', { AUTH_AUDIENCE: ' , ,' }, 'AUTH_AUDIENCE names no audience'],
    ['AUTH_SCOPE', { AUTH_SCOPE: undefined }, 'AUTH_SCOPE is not set'],
    ['AUTH_SCOPE', { AUTH_SCOPE: ' ' }, 'AUTH_SCOPE is not set'],
    ['AWS_REGION', { AWS_REGION: undefined }, 'AWS_REGION is not set'],
    ['AWS_ACCESS_KEY_ID', { AWS_ACCESS_KEY_ID: undefined }, 'AWS_ACCESS_KEY_ID is not set'],
    ['AUTH_JWKS_URL', { AUTH_JWKS_URL: 'nope' }, 'AUTH_JWKS_URL is not a valid URL: nope'],
  ])('fails at cold start naming %s', (_name, override, message) => {
    expect(() => loadConfig({ ...lambdaEnv, ...override })).toThrow(message);
  });

  it.each(['0', '1.5', '-1', '60001', 'soon'])(
    'fails at cold start on DYNAMODB_ATTEMPT_TIMEOUT_MS=%s',
    (value) => {
      expect(() => loadConfig({ ...lambdaEnv, DYNAMODB_ATTEMPT_TIMEOUT_MS: value })).toThrow(
        `DYNAMODB_ATTEMPT_TIMEOUT_MS must be a whole number of milliseconds from 1 to 60000: ${value}`,
      );
    },
  );
});

describe('envNames', () => {
  it('names exactly the variables of the environment table in docs/local-development.md', () => {
    // The one-name rows of that section; the last row, Lambda's own AWS_* variables, names four.
    const page = readFileSync(new URL('../../docs/local-development.md', import.meta.url), 'utf8');
    const section = page.split("## The handler's environment")[1]?.split('\n## ')[0] ?? '';

    const documented = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((row) => row[1]);

    expect(documented.toSorted()).toStrictEqual(Object.values(envNames).toSorted());
  });
});
