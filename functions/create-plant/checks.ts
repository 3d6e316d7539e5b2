import {
  checkPlant,
  checkPlantBody,
  idPlaceholder,
  type OperationChecks,
  refused,
} from '../checks/check.ts';
import type { operation } from './operation.ts';

const createBody = checkPlantBody(idPlaceholder);
const answered = { status: 200, body: { kind: 'json', value: checkPlant } } as const;

/** How POST /plants is tried: its sample, and the checks a release of it must pass. */
export const checks = {
  sample: {
    request: (id) => ({ body: `{"id":${id},"name":"Sample","tag":"sample"}` }),
    status: 200,
  },
  // The version under test creates the check plant itself; the replay must follow that create.
  plant: 'absent',
  cases: [
    {
      name: 'a create with a valid token gets 200 and the plant',
      body: createBody,
      expected: answered,
    },
    {
      name: 'its identical replay gets 200 and the same plant',
      body: createBody,
      expected: answered,
    },
    refused(400, 'a body without a name', { body: `{"id":${idPlaceholder}}` }),
  ],
} as const satisfies OperationChecks<typeof operation>;
