import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../functions/config.ts';
import type { Operation } from '../../../functions/operation.ts';
import { operations } from '../../../functions/operations.ts';
import {
  hookEnvNames,
  loadHookConfig,
  loadHookConfigOrError,
  otherOperationsOf,
  tokenScopesOf,
} from '../../../functions/pre-traffic-check/hook-config.ts';

const version = 'arn:aws:lambda:eu-west-1:123456789012:function:PlantStore-prod-CreatePlant:42';
const byName = (name: string) => {
  const found = operations.find((operation) => operation.name === name);
  if (found === undefined) throw new Error(`no operation ${name}`);
  return found;
};
const create = byName('create-plant');
const list = byName('list-plants');
const check = { OPERATION: 'create-plant' };
const pool = {
  TOKEN_URL: 'https://plants-prod.auth.eu-west-1.amazoncognito.com/oauth2/token',
  USER_POOL_ID: 'eu-west-1_AbCd1234',
  CLIENT_ID: '4p1antst0reclient0id0abcde',
};
/** delete-plant's live alias, where create-plant's cleanup goes. */
const deleteAlias =
  'arn:aws:lambda:eu-west-1:123456789012:function:PlantStore-prod-DeletePlant:live';
const targets = { OPERATION_TARGETS: JSON.stringify({ 'delete-plant': deleteAlias }) };

/** The other operations an operation's declared cases name, read from its declaration. */
const namedBy = (operation: Operation, withToken = true): string[] => [
  ...new Set(
    operation.preTrafficCases
      .filter((testCase) => withToken || testCase.withoutToken === true)
      .flatMap((testCase) =>
        testCase.operation === undefined || testCase.operation === operation.name
          ? []
          : [testCase.operation],
      ),
  ),
];

describe('loadHookConfig', () => {
  it("reads the target version, the pool, and the live alias of the other operation create-plant's cases name", () => {
    expect(
      loadHookConfig({
        TARGET_FUNCTION_ARN: version,
        ...check,
        ...pool,
        ...targets,
        TOKEN_SCOPE: 'plants/write',
      }),
    ).toEqual({
      targetFunctionArn: version,
      operation: create,
      others: [{ operation: byName('delete-plant'), functionArn: deleteAlias }],
      token: {
        tokenUrl: new URL(pool.TOKEN_URL),
        userPoolId: pool.USER_POOL_ID,
        clientId: pool.CLIENT_ID,
        scope: 'plants/write',
      },
    });
  });

  it('reads no pool at all as an external issuer, needing no other function, and the scope as optional', () => {
    expect(
      loadHookConfig({ TARGET_FUNCTION_ARN: ` ${version} `, ...check, USER_POOL_ID: ' ' }),
    ).toEqual({ targetFunctionArn: version, operation: create, others: [] });
    expect(
      loadHookConfig({ TARGET_FUNCTION_ARN: version, ...check, ...pool, ...targets }).token?.scope,
    ).toBeUndefined();
  });

  it('takes a version of another operation as well as its alias', () => {
    const deleteVersion = deleteAlias.replace(/live$/, '3');

    expect(
      loadHookConfig({
        TARGET_FUNCTION_ARN: version,
        ...check,
        ...pool,
        OPERATION_TARGETS: ` {"delete-plant": " ${deleteVersion} "} `,
      }).others,
    ).toEqual([{ operation: byName('delete-plant'), functionArn: deleteVersion }]);
  });

  it.each([
    'arn:aws-cn:lambda:cn-north-1:123456789012:function:f:1',
    'arn:aws-us-gov:lambda:us-gov-west-1:123456789012:function:my_fn-2:130',
  ])('takes a version ARN of another partition: %s', (arn) => {
    expect(loadHookConfig({ TARGET_FUNCTION_ARN: arn, ...check }).targetFunctionArn).toBe(arn);
  });

  it.each(operations)('reads the operation $name, whose core cases the hook runs', (operation) => {
    expect(
      loadHookConfig({ TARGET_FUNCTION_ARN: version, OPERATION: ` ${operation.name} ` }).operation,
    ).toBe(operation);
  });

  it.each(operations)(
    "reads $name's targets as exactly the other operations its cases name, with a token",
    (operation) => {
      const named = namedBy(operation);
      const aliasOf = (name: string) => deleteAlias.replace('DeletePlant', name);

      const config = loadHookConfig({
        TARGET_FUNCTION_ARN: version,
        OPERATION: operation.name,
        ...pool,
        ...(named.length === 0
          ? {}
          : {
              OPERATION_TARGETS: JSON.stringify(
                Object.fromEntries(named.map((name) => [name, aliasOf(name)])),
              ),
            }),
      });

      expect(
        config.others.map((other) => [other.operation.name, other.functionArn]).toSorted(),
      ).toEqual(named.map((name) => [name, aliasOf(name)]).toSorted());
    },
  );

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
      'USER_POOL_ID, CLIENT_ID set without TOKEN_URL',
    ],
    [
      'a scope alone',
      { TARGET_FUNCTION_ARN: version, ...check, TOKEN_SCOPE: 'plants/write' },
      'TOKEN_SCOPE set without TOKEN_URL, USER_POOL_ID, CLIENT_ID',
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
      'no target for an operation the cases name',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool },
      "OPERATION_TARGETS is not set, and create-plant's cases name delete-plant",
    ],
    [
      'targets that are not JSON',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool, OPERATION_TARGETS: deleteAlias },
      'OPERATION_TARGETS is not a JSON object of operation names and function ARNs',
    ],
    [
      'targets as a list',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool, OPERATION_TARGETS: `["${deleteAlias}"]` },
      'OPERATION_TARGETS is not a JSON object',
    ],
    [
      'a target that is not text',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool, OPERATION_TARGETS: '{"delete-plant":1}' },
      'OPERATION_TARGETS is not a JSON object',
    ],
    [
      'targets without an operation the cases name',
      { TARGET_FUNCTION_ARN: version, ...check, ...pool, OPERATION_TARGETS: '{}' },
      "OPERATION_TARGETS has no function for delete-plant, which create-plant's cases name",
    ],
    [
      'a target the cases do not name: the hook may invoke no more than they need',
      {
        TARGET_FUNCTION_ARN: version,
        ...check,
        ...pool,
        OPERATION_TARGETS: JSON.stringify({
          'delete-plant': deleteAlias,
          'list-plants': deleteAlias,
        }),
      },
      "OPERATION_TARGETS names operations create-plant's cases do not send to: list-plants",
    ],
    [
      'a target for the operation itself, whose cases go to the new version',
      {
        TARGET_FUNCTION_ARN: version,
        ...check,
        ...pool,
        OPERATION_TARGETS: JSON.stringify({ 'delete-plant': deleteAlias, 'create-plant': version }),
      },
      "OPERATION_TARGETS names operations create-plant's cases do not send to: create-plant",
    ],
    [
      'targets without a token, when the cases sent without one name no other operation',
      { TARGET_FUNCTION_ARN: version, ...check, ...targets },
      "OPERATION_TARGETS names operations create-plant's cases do not send to: delete-plant",
    ],
    [
      'an unqualified target, which is $LATEST',
      {
        TARGET_FUNCTION_ARN: version,
        ...check,
        ...pool,
        OPERATION_TARGETS: JSON.stringify({ 'delete-plant': deleteAlias.replace(/:live$/, '') }),
      },
      'OPERATION_TARGETS gives delete-plant no alias or version ARN',
    ],
    [
      'a $LATEST target',
      {
        TARGET_FUNCTION_ARN: version,
        ...check,
        ...pool,
        OPERATION_TARGETS: JSON.stringify({
          'delete-plant': deleteAlias.replace(/live$/, '$LATEST'),
        }),
      },
      'OPERATION_TARGETS gives delete-plant no alias or version ARN',
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
    ).toEqual({ targetFunctionArn: version, operation: list, others: [] });
  });
});

describe('otherOperationsOf', () => {
  it.each(operations)('names the other operations $name’s declared cases name', (operation) => {
    expect(otherOperationsOf(operation).map((other) => other.name)).toEqual(
      operations.filter((each) => namedBy(operation).includes(each.name)).map((each) => each.name),
    );
    expect(otherOperationsOf(operation, false).map((other) => other.name)).toEqual(
      namedBy(operation, false),
    );
  });

  it('names delete-plant for create-plant, which deletes its plant after the check', () => {
    expect(otherOperationsOf(create)).toEqual([byName('delete-plant')]);
    expect(otherOperationsOf(create, false)).toEqual([]);
  });
});

describe('tokenScopesOf', () => {
  it.each(operations)(
    'asks for $name’s scope, then those of the operations its cases name, each once',
    (operation) => {
      const scopes = [operation.scope, ...namedBy(operation).map((name) => byName(name).scope)];

      expect(tokenScopesOf(operation)).toEqual([...new Set(scopes)]);
    },
  );
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
