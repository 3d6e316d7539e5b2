import type { Operation } from '../operation.ts';

// The checks' reserved tag (infra/webhook-settings.ts `checkPlantTag`): no subscriber hears of it.
const checkPlant = '{"name":"Pre-traffic check","tag":"plant-store-check"}';
const createBody = `{"id":{{id}},${checkPlant.slice(1)}`;

/** POST /plants: its route, scope and store actions, its outcomes and how it is tried. */
export const operation = {
  name: 'create-plant',
  method: 'POST',
  path: '/plants',
  scope: 'plants/write',
  dynamodbActions: ['dynamodb:PutItem', 'dynamodb:GetItem'],
  summary: 'Create a plant, or replay an identical create',
  // A create, an identical create replayed, and a different create of a stored id.
  outcomes: { created: 'PlantsCreated', replayed: 'CreatesReplayed', conflict: 'CreateConflicts' },
  precondition: undefined,
  statuses: [200, 400, 409, 413, 415],
  sample: {
    request: (id) => ({ body: `{"id":${id},"name":"Sample","tag":"sample"}` }),
    status: 200,
  },
  // In order: the replay must follow the create it repeats, and the delete (to delete-plant's live
  // function, sent even after a case that broke off) leaves no test plant behind.
  preTrafficCases: [
    {
      name: 'a create with a valid token gets 200 and the plant',
      body: createBody,
      expected: { status: 200, body: { kind: 'json', value: JSON.parse(checkPlant) } },
    },
    {
      name: 'its identical replay gets 200 and the same plant',
      body: createBody,
      expected: { status: 200, body: { kind: 'json', value: JSON.parse(checkPlant) } },
    },
    {
      name: 'a body without a name gets 400 in the error shape',
      body: '{"id":{{id}}}',
      expected: { status: 400, body: { kind: 'error' } },
    },
    {
      name: 'the plant deleted after the check',
      operation: 'delete-plant',
      always: true,
      expected: { status: 204, body: { kind: 'empty' } },
    },
  ],
} as const satisfies Operation;
