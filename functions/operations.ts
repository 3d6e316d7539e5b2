/**
 * The API's operations, each declared once. The CDK stack (one function, route, role and release
 * per entry), the dev server (its routes), the docs page and the tests read this list, so a new
 * operation is one entry here and one folder `functions/<name>/` whose `handler.ts` exports
 * `handler`.
 *
 * Plain data with no imports: the stack and the dev server load it without any handler code.
 */
export type Operation = {
  /** The folder under `functions/`, the function's construct id and its metrics' name. */
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** As API Gateway writes a route's path: `{id}` is a path parameter. */
  readonly path: string;
  /** The scope a token must carry (`AUTH_SCOPE` of the operation's function). */
  readonly scope: 'plants/read' | 'plants/write';
  /** Exactly the DynamoDB actions its store calls make on the plants table. */
  readonly dynamodbActions: readonly `dynamodb:${string}`[];
  /** One line for the function's description and the docs. */
  readonly summary: string;
};

export const operations = [
  {
    name: 'create-plant',
    method: 'POST',
    path: '/plants',
    scope: 'plants/write',
    dynamodbActions: ['dynamodb:PutItem', 'dynamodb:GetItem'],
    summary: 'Create a plant, or replay an identical create',
  },
  {
    name: 'list-plants',
    method: 'GET',
    path: '/plants',
    scope: 'plants/read',
    dynamodbActions: ['dynamodb:Scan'],
    summary: 'List plants, a page at a time',
  },
  {
    name: 'delete-plant',
    method: 'DELETE',
    path: '/plants/{id}',
    scope: 'plants/write',
    dynamodbActions: ['dynamodb:DeleteItem'],
    summary: 'Delete a plant by id',
  },
] as const satisfies readonly Operation[];

export type OperationName = (typeof operations)[number]['name'];

/** API Gateway's route key: `POST /plants`. */
export const routeKey = (operation: Operation) => `${operation.method} ${operation.path}`;
