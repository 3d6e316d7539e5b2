import { IssuerUnavailableError, issuerRetrySeconds } from './auth/auth-errors.ts';
import type { ErrorAnswer } from './http/error-response.ts';
import type { StatusOutcome } from './http/request-metrics.ts';
import { InvalidCursorError } from './plants/list-cursor.ts';
import {
  InvalidPlantError,
  PlantChangedError,
  PlantConflictError,
  PlantNotFoundError,
  StoreUnavailableError,
} from './plants/plant-errors.ts';
import { InvalidPlantIdError } from './plants/plant-id.ts';

/**
 * The API's error table: what a client is told for each domain error, whichever operation meets
 * it. A dependency that is unavailable is worth a retry: a write the store could not take soon;
 * an issuer that could not be reached is given longer to recover, and names its own outcome so
 * that its outage does not read as the store's.
 */
export const errorAnswers: readonly ErrorAnswer[] = [
  { type: InvalidPlantError, status: 400 },
  { type: InvalidPlantIdError, status: 400 },
  { type: InvalidCursorError, status: 400 },
  { type: PlantNotFoundError, status: 404, outcome: 'not_found' },
  { type: PlantConflictError, status: 409, outcome: 'conflict' },
  { type: PlantChangedError, status: 412, outcome: 'changed' },
  {
    type: StoreUnavailableError,
    status: 503,
    message: 'The plant store is busy or unavailable, retry later',
    retryAfterSeconds: 1,
  },
  {
    type: IssuerUnavailableError,
    status: 503,
    message: 'Token issuer is unavailable, retry later',
    retryAfterSeconds: issuerRetrySeconds,
    outcome: 'issuer_unavailable',
  },
];

/**
 * The counters of the failures every operation shares, which the dashboard and the alarms read:
 * a 503 is the store's unless its row names the issuer, and a success its handler left unnamed is
 * a fault of ours. An operation's own outcomes come on top, and name the outcomes of the rows
 * above it can meet: `not_found`, `conflict`, `changed`.
 */
export const failureCounters = {
  unauthorized: 'AuthFailures',
  forbidden: 'AuthFailures',
  invalid: 'ValidationFailures',
  unavailable: 'StoreUnavailable',
  issuer_unavailable: 'IssuerUnavailable',
  error: 'Errors',
  unnamed: 'Errors',
} as const satisfies Readonly<Record<StatusOutcome | 'issuer_unavailable', string>>;
