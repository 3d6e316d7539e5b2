import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationNamed } from '../../functions/operations.ts';
import { fakeEvent, fakeOperationEvent } from '../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../support/plant-api-harness.ts';

/** Each run is a dozen steps against dynalite through the real handlers. */
const runs = Number(process.env.FC_MODEL_RUNS ?? 40) / 2;

type Plant = { name: string; tag?: string };
/** Which ETag a precondition names: none, `*`, the current one, one made stale, or the current one weak. */
type Names = 'none' | 'any' | 'current' | 'stale' | 'weak';
type Step =
  | { readonly kind: 'create'; readonly slot: number; readonly plant: Plant }
  | { readonly kind: 'read'; readonly slot: number; readonly ifNoneMatch: Names }
  | {
      readonly kind: 'replace';
      readonly slot: number;
      readonly plant: Plant;
      readonly ifMatch: Names;
    }
  | { readonly kind: 'delete'; readonly slot: number };

let api: PlantApiHarness;
let token: string;

beforeAll(async () => {
  api = await startPlantApi();
  token = await api.issuer.mint({ expiresIn: 3600, claims: { scope: 'plants/read plants/write' } });
});
afterAll(() => api.close());

const plant: fc.Arbitrary<Plant> = fc
  .record({ name: fc.constantFrom('Fern', 'Ivy'), tag: fc.constantFrom(undefined, 'indoor') })
  .map(({ name, tag }) => (tag === undefined ? { name } : { name, tag }));
const slot = fc.nat({ max: 1 });
const names = fc.constantFrom<Names>('none', 'any', 'current', 'stale', 'weak');
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), slot, plant }),
  fc.record({ kind: fc.constant('read' as const), slot, ifNoneMatch: names }),
  fc.record({ kind: fc.constant('replace' as const), slot, plant, ifMatch: names }),
  fc.record({ kind: fc.constant('delete' as const), slot }),
);

/** One id as the model sees it: its plant, if any; the ETag it last answered; the ETags made stale. */
type Slot = { plant?: Plant; etag?: string; stale: string[] };

const samePlant = (a: Plant, b: Plant) => a.name === b.name && a.tag === b.tag;
const etagOf = (result: APIGatewayProxyStructuredResultV2) =>
  result.headers?.etag === undefined ? undefined : String(result.headers.etag);

/** The header a step sends for `which`, or undefined when the model knows no such ETag. */
function header(which: Names, state: Slot): string | undefined {
  switch (which) {
    case 'none':
      return undefined;
    case 'any':
      return '*';
    case 'current':
      return state.etag;
    case 'weak':
      return state.etag === undefined ? undefined : `W/${state.etag}`;
    case 'stale':
      return state.stale.at(-1);
  }
}

const read = operationNamed('get-plant');
const replace = operationNamed('replace-plant');
const remove = operationNamed('delete-plant');

describe('GET and PUT /plants/{id} against a model of the rules, with creates and deletes', () => {
  it('answers every sequence as the model does: 200, 304, 404 and 412 exactly when it says, and the table ends the same', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const ids = [api.freshId(), api.freshId()];
        const model: Slot[] = [{ stale: [] }, { stale: [] }];
        for (const each of steps) {
          const id = ids[each.slot] ?? '';
          const state = model[each.slot] ?? { stale: [] };
          const headers: Record<string, string> = {};
          if (each.kind === 'create') {
            const result = await api.invoke(
              fakeEvent({ token, body: JSON.stringify({ id: Number(id), ...each.plant }) }),
            );
            const expected =
              state.plant === undefined ? 200 : samePlant(state.plant, each.plant) ? 200 : 409;
            expect(result.statusCode).toBe(expected);
            if (state.plant === undefined) {
              state.plant = each.plant;
              // A new plant has a new revision the model learns at its next read or replace.
              if (state.etag !== undefined) state.stale.push(state.etag);
              state.etag = undefined;
            }
          } else if (each.kind === 'read') {
            const value = header(each.ifNoneMatch, state);
            if (value !== undefined) headers['if-none-match'] = value;
            const result = await api.handlers[read.name](
              fakeOperationEvent(read, { pathParameters: { id } }, { token, headers }),
            );
            if (state.plant === undefined) {
              expect(result.statusCode).toBe(404);
              continue;
            }
            const matches =
              value === '*' || (value !== undefined && value.replace(/^W\//, '') === state.etag);
            expect(result.statusCode).toBe(matches ? 304 : 200);
            if (state.etag !== undefined) expect(etagOf(result)).toBe(state.etag);
            state.etag = etagOf(result);
            if (!matches) expect(bodyOf(result)).toStrictEqual({ id: Number(id), ...state.plant });
          } else if (each.kind === 'replace') {
            const value = header(each.ifMatch, state);
            if (value !== undefined) headers['if-match'] = value;
            const result = await api.handlers[replace.name](
              fakeOperationEvent(
                replace,
                { pathParameters: { id }, body: JSON.stringify(each.plant) },
                { token, headers },
              ),
            );
            if (state.plant === undefined) {
              expect(result.statusCode).toBe(404);
              continue;
            }
            const matches = value === undefined || value === '*' || value === state.etag;
            expect(result.statusCode).toBe(matches ? 200 : 412);
            if (matches) {
              const etag = etagOf(result);
              expect(etag).not.toBe(state.etag);
              if (state.etag !== undefined) state.stale.push(state.etag);
              state.plant = each.plant;
              state.etag = etag;
            }
          } else {
            const result = await api.handlers[remove.name](
              fakeOperationEvent(remove, { pathParameters: { id } }, { token }),
            );
            expect(result.statusCode).toBe(204);
            if (state.etag !== undefined) state.stale.push(state.etag);
            state.plant = undefined;
            state.etag = undefined;
          }
        }
        for (const [index, id] of ids.entries()) {
          const expected = model[index]?.plant;
          const stored = await api.dynalite.getItem(api.tableName, id);
          expect(stored).toStrictEqual(
            expected === undefined
              ? undefined
              : {
                  id: { N: id },
                  name: { S: expected.name },
                  ...(expected.tag === undefined ? {} : { tag: { S: expected.tag } }),
                },
          );
        }
      }),
      { numRuns: runs },
    );
  });
});
