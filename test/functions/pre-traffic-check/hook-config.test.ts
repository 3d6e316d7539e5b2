import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../functions/config.ts';
import { operationNamed, operations } from '../../../functions/operations.ts';
import {
  hookEnvNames,
  loadHookConfig,
  loadHookConfigOrError,
} from '../../../functions/pre-traffic-check/hook-config.ts';

const version = 'arn:aws:lambda:eu-west-1:123456789012:function:PlantStore-prod-CreatePlant:42';
const create = operationNamed('create-plant');
const list = operationNamed('list-plants');
const check = { OPERATION: 'create-plant' };
const pool = {
  TOKEN_URL: 'https://plants-prod.auth.eu-west-1.amazoncognito.com/oauth2/token',
  USER_POOL_ID: 'eu-west-1_AbCd1234',
  CLIENT_ID: '4p1antst0reclient0id0abcde',
  PLANTS_TABLE_NAME: 'PlantStore-prod-PlantsTable-1ABC',
};

describe('loadHookConfig', () => {
  it('reads the target version, the pool and the table of the check plant', () => {
    expect(
      loadHookConfig({
        TARGET_FUNCTION_ARN: version,
        ...check,
        ...pool,
        TOKEN_SCOPE: 'plants/write',
      }),
    ).toEqual({
      targetFunctionArn: version,
      operation: create,
      token: {
        tokenUrl: new URL(pool.TOKEN_URL),
        userPoolId: pool.USER_POOL_ID,
        clientId: pool.CLIENT_ID,
        scope: 'plants/write',
      },
      tableName: pool.PLANTS_TABLE_NAME,
    });
  });

  it('reads no pool at all as an external issuer, needing no table, and the scope as optional', () => {
    expect(
      loadHookConfig({ TARGET_FUNCTION_ARN: ` ${version} `, ...check, USER_POOL_ID: ' ' }),
    ).toEqual({ targetFunctionArn: version, operation: create });
    expect(
      loadHookConfig({ TARGET_FUNCTION_ARN: version, ...check, ...pool }).token?.scope,
    ).toBeUndefined();
  });

  it.each([
    'arn:aws-cn:lambda:cn-north-1:123456789012:function:f:1',
    'arn:aws-us-gov:lambda:us-gov-west-1:123456789012:function:my_fn-2:130',
  ])('takes a version ARN of another partition: %s', (arn) => {
    expect(loadHookConfig({ TARGET_FUNCTION_ARN: arn, ...check }).targetFunctionArn).toBe(arn);
  });

  it.each(operations)('reads the operation $name, whose checks the hook runs', (operation) => {
    expect(
      loadHookConfig({ TARGET_FUNCTION_ARN: version, OPERATION: ` ${operation.name} ` }).operation,
    ).toBe(operation);
  });

  it.each([
    ['no target', {}, 'TARGET_FUNCTION_ARN is not set'],
    ['an alias', { TARGET_FUNCTION_ARN: version.replace(/42$/, 'live') }, 'not a function version'],
    ['$LATEST', { TARGET_FUNCTION_ARN: version.replace(/42$/, '$LATEST') }, 'not a function'],
    ['no qualifier', { TARGET_FUNCTION_ARN: version.replace(/:42$/, '') }, 'not a function'],
    ['a bare name', { TARGET_FUNCTION_ARN: 'CreatePlant:42' }, 'not a function version'],
    ['no operation', { TARGET_FUNCTION_ARN: version }, 'OPERATION is not set'],
    [
      'an operation not in the list',
      { TARGET_FUNCTION_ARN: version, OPERATION: 'update-plant' },
      `OPERATION is not one of ${operations.map((each) => each.name).join(', ')}: update-plant`,
    ],
    [
      'an operation by its route',
      { TARGET_FUNCTION_ARN: version, OPERATION: 'GET /plants' },
      'OPERATION is not one of',
    ],
    [
      'a pool without its token URL',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool, TOKEN_URL: '' },
      'USER_POOL_ID, CLIENT_ID, PLANTS_TABLE_NAME set without TOKEN_URL',
    ],
    [
      'a scope alone',
      { TARGET_FUNCTION_ARN: version, ...check, TOKEN_SCOPE: 'plants/write' },
      'TOKEN_SCOPE set without TOKEN_URL, USER_POOL_ID, CLIENT_ID, PLANTS_TABLE_NAME',
    ],
    [
      'a token URL in the clear',
      {
        TARGET_FUNCTION_ARN: version,
        ...check,
        ...pool,
        TOKEN_URL: 'http://example.com/oauth2/token',
      },
      'TOKEN_URL is not an https URL',
    ],
    [
      'a token URL that is no URL',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool, TOKEN_URL: 'plants-prod' },
      'TOKEN_URL is not an https URL',
    ],
    [
      'a pool id without its region',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool, USER_POOL_ID: 'AbCd1234' },
      'USER_POOL_ID is not a user pool id',
    ],
    [
      'a client id with spaces',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool, CLIENT_ID: 'a b' },
      'CLIENT_ID is not an app client id',
    ],
    [
      'a pool without the table of its plant',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool, PLANTS_TABLE_NAME: ' ' },
      'TOKEN_URL, USER_POOL_ID, CLIENT_ID set without PLANTS_TABLE_NAME',
    ],
    [
      'a table alone',
      { TARGET_FUNCTION_ARN: version, ...check, PLANTS_TABLE_NAME: 'plants' },
      'PLANTS_TABLE_NAME set without TOKEN_URL, USER_POOL_ID, CLIENT_ID',
    ],
  ])('refuses %s, naming the variable', (_case, env, message) => {
    expect(() => loadHookConfig(env)).toThrow(ConfigError);
    expect(() => loadHookConfig(env)).toThrow(message);
  });
});

describe('loadHookConfigOrError', () => {
  it('hands back the configuration error instead of throwing it, so the hook can report', () => {
    const result = loadHookConfigOrError({});

    expect(result).toBeInstanceOf(ConfigError);
    expect(String(result)).toBe('ConfigError: TARGET_FUNCTION_ARN is not set');
    expect(
      loadHookConfigOrError({ TARGET_FUNCTION_ARN: version, OPERATION: 'list-plants' }),
    ).toEqual({ targetFunctionArn: version, operation: list });
  });
});

describe('hookEnvNames', () => {
  it("names exactly the variables of the pre-traffic check's table in docs/operations.md", () => {
    const page = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8');
    const section = page.split('### Pre-traffic check')[1]?.split('\n#')[0] ?? '';
    const rows = [...section.matchAll(/^\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) \|/gm)];

    const documented = rows.flatMap((row) => [...(row[1] ?? '').matchAll(/`([A-Z_]+)`/g)]);

    expect(documented.map((name) => name[1]).toSorted()).toStrictEqual(
      Object.values(hookEnvNames).toSorted(),
    );
  });
});
