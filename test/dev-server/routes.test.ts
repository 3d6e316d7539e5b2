import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../dev-server/routes.ts';
import { type Operation, operations, routeKey } from '../../functions/operations.ts';
import { concretePath, noSuchRoute, otherMethodRoutes } from '../support/unmatched-routes.ts';

const route = (method: Operation['method'], path: string, name = path): Operation => ({
  name,
  method,
  path,
  scope: 'plants/read',
  dynamodbActions: [],
  summary: name,
  outcomes: {},
  statuses: [200],
});

/** Routes of the shape the list has, fixed here so that no operation added later changes them. */
const fixedRoutes = [
  route('GET', '/plants', 'list'),
  route('POST', '/plants', 'create'),
  route('DELETE', '/plants/{id}', 'delete'),
];

describe('matchRoute', () => {
  it('reaches every operation of functions/operations.ts by its own route', () => {
    for (const operation of operations) {
      const path = operation.path.replaceAll(/\{[^}]+\}/g, '7');

      const matched = matchRoute(operation.method, path);

      expect(matched?.operation).toBe(operation);
    }
  });

  it.each([
    ['GET', '/plants', 'GET /plants', {}],
    ['POST', '/plants', 'POST /plants', {}],
    ['DELETE', '/plants/42', 'DELETE /plants/{id}', { id: '42' }],
    [
      'DELETE',
      '/plants/-9223372036854775808',
      'DELETE /plants/{id}',
      { id: '-9223372036854775808' },
    ],
    ['DELETE', '/plants/01', 'DELETE /plants/{id}', { id: '01' }],
    ['DELETE', '/plants/%31%2E0', 'DELETE /plants/{id}', { id: '1.0' }],
    ['DELETE', '/plants/a%2Fb', 'DELETE /plants/{id}', { id: 'a/b' }],
    ['DELETE', '/plants/%zz', 'DELETE /plants/{id}', { id: '%zz' }],
  ])('matches %s %s to %s with path parameters %o', (method, path, key, parameters) => {
    const matched = matchRoute(method, path);

    expect(matched && routeKey(matched.operation)).toBe(key);
    expect(matched?.pathParameters).toStrictEqual(parameters);
  });

  it.each([
    ['PUT', '/plants'],
    ['PATCH', '/plants'],
    ['DELETE', '/plants'],
    ['HEAD', '/plants'],
    ['OPTIONS', '/plants'],
    ['get', '/plants'],
    ['GET', '/plants/1'],
    ['POST', '/plants/1'],
    ['PUT', '/plants/1'],
    ['DELETE', '/plants/'],
    ['DELETE', '/plants/1/2'],
    ['DELETE', '/plants/1/'],
    ['GET', '/plants/'],
    ['GET', '/Plants'],
    ['GET', '/'],
    ['GET', ''],
  ])(
    'matches no route of a list of that shape for %s %s (the HTTP API answers 404)',
    (method, path) => {
      expect(matchRoute(method, path, fixedRoutes)).toBeUndefined();
    },
  );

  it.each(operations.map((operation) => [operation.name, operation] as const))(
    "matches no operation for %s's route in lower case, with HEAD or OPTIONS, or with a trailing slash",
    (_name, operation) => {
      const path = concretePath(operation.path);

      for (const [method, sent] of [
        [operation.method.toLowerCase(), path],
        ['HEAD', path],
        ['OPTIONS', path],
        [operation.method, `${path}/`],
      ]) {
        expect(matchRoute(method ?? '', sent ?? '')).toBeUndefined();
      }
    },
  );

  it.each([
    ...otherMethodRoutes().map(({ method, path }) => [method, path]),
    ['GET', noSuchRoute],
    ['DELETE', `${noSuchRoute}/1`],
    ['GET', '/'],
    ['GET', ''],
  ])('matches no operation of functions/operations.ts for %s %s', (method, path) => {
    expect(matchRoute(method ?? '', path ?? '')).toBeUndefined();
  });

  it('prefers a literal segment to a parameter, whatever the order of the routes', () => {
    const routes = [route('GET', '/plants/{id}', 'one'), route('GET', '/plants/all', 'all')];

    expect(matchRoute('GET', '/plants/all', routes)?.operation.name).toBe('all');
    expect(matchRoute('GET', '/plants/all', routes.toReversed())?.operation.name).toBe('all');
    expect(matchRoute('GET', '/plants/42', routes)?.pathParameters).toStrictEqual({ id: '42' });
  });

  it('names each parameter of a route with several', () => {
    const routes = [route('GET', '/shops/{shop}/plants/{id}')];

    const matched = matchRoute('GET', '/shops/north/plants/9', routes);

    expect(matched?.pathParameters).toStrictEqual({ shop: 'north', id: '9' });
  });
});
