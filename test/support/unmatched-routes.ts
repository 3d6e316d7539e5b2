import { type Operation, operations } from '../../functions/operations.ts';

/** A path outside `/plants`: no operation of the list has it, and no future one will claim it. */
export const noSuchRoute = '/no-such-route';

/** The methods an HTTP API routes; an operation can have any of them but PATCH. */
const routedMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A route's path with each of its `{name}`s filled in with `1`, as a request would send it. */
export const concretePath = (path: string) => path.replaceAll(/\{[^{}/]+\}/g, '1');

/**
 * Each path of the list with each method no operation has on it, filled in: the routes a known
 * path does not have, which API Gateway answers with its 404 (not a 405). Derived from the list,
 * so that an operation added on one of them takes it out rather than failing the test.
 */
export function otherMethodRoutes(
  routes: readonly Pick<Operation, 'method' | 'path'>[] = operations,
): { readonly method: string; readonly path: string }[] {
  const paths = [...new Set(routes.map(({ path }) => path))];
  return paths.flatMap((path) =>
    routedMethods
      .filter((method) => !routes.some((route) => route.path === path && route.method === method))
      .map((method) => ({ method, path: concretePath(path) })),
  );
}
