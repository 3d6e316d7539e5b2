import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as z from 'zod/mini';
import {
  deliveryDeadlineMs,
  maxAttempts,
  retryDelaysSeconds,
  retryJitter,
} from '../functions/deliver-webhook/delivery-policy.ts';
import { newPlantEvent } from '../functions/deliver-webhook/new-plant-event.ts';
import { signatureHeaders, signingKeyOf } from '../functions/deliver-webhook/signature.ts';
import { pageLimits } from '../functions/list-plants/list-query.ts';
import { sharedStatuses } from '../functions/operation.ts';
import { operations } from '../functions/operations.ts';
import {
  idSchema,
  limits,
  newPlantSchema,
  parseNewPlant,
  plantSchema,
  replacementSchema,
} from '../functions/plants/new-plant.ts';
import { int64 } from '../functions/plants/plant.ts';
import { loadOpenApiExchanges } from '../scripts/openapi-exchange.ts';
import { insertRecord } from './support/webhook-events.ts';

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  allOf?: JsonSchema[];
  $ref?: string;
  [keyword: string]: unknown;
};

const document = parse(await readFile(new URL('../openapi.yaml', import.meta.url), 'utf8'));
const schemas: Record<string, JsonSchema> = document.components.schemas;
const createPlant = document.paths['/plants'].post;
const listPlants = document.paths['/plants'].get;
const deletePlant = document.paths['/plants/{id}'].delete;

/**
 * The zod schema as JSON Schema. The id's exactness and range live in parseNewPlant, so they are
 * named here (the bounds as a JSON number reads them, as openapi.yaml's do).
 */
function fromZod(schema: z.ZodMiniType): JsonSchema {
  const { $schema: _, ...jsonSchema } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema: generated }) => {
      if (zodSchema === idSchema) {
        Object.assign(generated, {
          type: 'integer',
          format: 'int64',
          minimum: Number(int64.min),
          maximum: Number(int64.max),
        });
      }
    },
  }) as JsonSchema;
  return jsonSchema;
}

/** openapi.yaml's schema with `$ref`s resolved, `allOf` merged and prose dropped. */
function fromOpenApi(schema: JsonSchema): JsonSchema {
  if (schema.$ref) return fromOpenApi(schemas[schema.$ref.split('/').at(-1) ?? ''] ?? {});
  if (schema.allOf) {
    const parts = schema.allOf.map(fromOpenApi);
    return {
      type: 'object',
      properties: Object.assign({}, ...parts.map((part) => part.properties)),
      required: parts.flatMap((part) => part.required ?? []),
    };
  }
  const { description: _, example: __, ...rest } = schema;
  if (!rest.properties) return rest;
  return {
    ...rest,
    properties: Object.fromEntries(
      Object.entries(rest.properties).map(([name, property]) => [name, fromOpenApi(property)]),
    ),
  };
}

describe('openapi.yaml', () => {
  it('keeps the specification document: OpenAPI 3.1.0, version 1.0.0, MIT, bearer auth', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.info.license.name).toBe('MIT');
    expect(document.security).toStrictEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  it('documents NewPlant exactly as the zod schema validates it', () => {
    expect(fromOpenApi(schemas.NewPlant ?? {})).toStrictEqual(fromZod(newPlantSchema));
  });

  it("documents PlantReplacement exactly as the zod schema validates PUT's body", () => {
    expect(fromOpenApi(schemas.PlantReplacement ?? {})).toStrictEqual(fromZod(replacementSchema));
  });

  it('documents Plant exactly as the zod schema defines it', () => {
    expect(fromOpenApi(schemas.Plant ?? {})).toStrictEqual(fromZod(plantSchema));
  });

  it('documents the Error shape: an int32 error and a message, both required', () => {
    expect(fromOpenApi(schemas.Error ?? {})).toStrictEqual({
      type: 'object',
      required: ['error', 'message'],
      properties: {
        error: { type: 'integer', format: 'int32' },
        message: { type: 'string' },
      },
    });
  });

  it('documents the body limit the handler enforces', () => {
    expect(createPlant.requestBody['x-max-body-bytes']).toBe(limits.bodyMaxBytes);
  });

  it('documents exactly the operations of functions/operations.ts, each with its scope', () => {
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { security: unknown }>).map(([method, operation]) => ({
        route: `${method.toUpperCase()} ${path}`,
        security: operation.security,
      })),
    );

    expect(documented).toStrictEqual(
      expect.arrayContaining(
        operations.map(({ method, path, scope }) => ({
          route: `${method} ${path}`,
          security: [{ bearerAuth: [scope] }],
        })),
      ),
    );
    expect(documented).toHaveLength(operations.length);
  });

  it('documents a listed plant as the Plant with the id NewPlant takes, and the path id the same', () => {
    const [pathId] = deletePlant.parameters.map(
      (parameter: { $ref?: string }) =>
        document.components.parameters[parameter.$ref?.split('/').at(-1) ?? ''] ?? parameter,
    );

    expect(fromOpenApi(schemas.PlantListItem ?? {})).toStrictEqual(fromZod(newPlantSchema));
    expect(listPlants.responses['200'].content['application/json'].schema).toStrictEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/PlantListItem' },
    });
    expect(pathId).toMatchObject({ name: 'id', in: 'path', required: true });
    expect(fromOpenApi(pathId.schema)).toStrictEqual(
      fromOpenApi(schemas.NewPlant ?? {}).properties?.id,
    );
  });

  it('documents the list limit the handler enforces (an int32 from 1 to its maximum, its default when absent), and an opaque cursor', () => {
    const [limit, cursor] = listPlants.parameters;

    expect(limit).toMatchObject({ name: 'limit', in: 'query', required: false });
    expect(fromOpenApi(limit.schema)).toStrictEqual({
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: pageLimits.max,
      default: pageLimits.default,
    });
    expect(cursor).toMatchObject({ name: 'cursor', in: 'query', required: false });
    expect(fromOpenApi(cursor.schema)).toStrictEqual({ type: 'string' });
  });

  it("documents every status each operation declares, each error with the Error schema, and the gateway's own answers apart", () => {
    /** What API Gateway itself may answer on any route: a timeout, a body over its limit, a wrong host, throttling, a failed integration. */
    const gatewayStatuses = [408, 413, 421, 429, 500, 503];
    const error = { $ref: '#/components/schemas/Error' };
    const gateway = { $ref: '#/components/schemas/GatewayMessage' };
    const schemaOf = (status: string, operation = createPlant) => {
      let response = operation.responses[status];
      if (response.$ref) response = document.components.responses[response.$ref.split('/').at(-1)];
      return response.content?.['application/json'].schema;
    };

    for (const operation of operations) {
      const documented = document.paths[operation.path][operation.method.toLowerCase()];
      const ours = new Set<number>([...operation.statuses, ...sharedStatuses]);
      const all = [...new Set([...ours, ...gatewayStatuses])].sort((a, b) => a - b);

      expect(Object.keys(documented.responses), operation.name).toStrictEqual(all.map(String));
      for (const status of all) {
        const schema = schemaOf(String(status), documented);
        if (status < 400) continue;
        if (!ours.has(status)) expect(schema, `${operation.name} ${status}`).toStrictEqual(gateway);
        else if (gatewayStatuses.includes(status)) {
          expect(schema, `${operation.name} ${status}`).toStrictEqual({ oneOf: [error, gateway] });
        } else expect(schema, `${operation.name} ${status}`).toStrictEqual(error);
      }
    }
    expect(deletePlant.responses['204'].content).toBeUndefined();
    expect(
      document['x-unmatched-route-responses']['404'].content['application/json'].schema,
    ).toStrictEqual(gateway);
  });

  it('documents the gateway\'s answers as exactly {"message": <text>}, which no Error matches', () => {
    expect(fromOpenApi(schemas.GatewayMessage ?? {})).toStrictEqual({
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' } },
      additionalProperties: false,
    });
  });
});

describe('openapi.yaml and the service on name and tag', () => {
  const units = fc.oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    // Text where the form sent and its NFC form part ways: combining marks, characters NFC
    // expands (U+0958, U+FB2C, U+1D160), a precomposed letter and a mark that NFC reorders.
    fc.constantFrom('e\u0301', '\u0958', '\uFB2C', '\u{1D160}', '\u1E17\u0323', '\u{1F33F}'),
    fc.constantFrom('\u200C', '\u200D', '\u0915', '\u094D', '\u0645', '\u202E', '\n'),
  );
  const text = (max: number) =>
    fc
      .tuple(fc.integer({ min: 0, max: max + 8 }), fc.array(units, { maxLength: max + 8 }))
      .map(([length, parts]) => [...parts.join('')].slice(0, length).join(''));

  it.each([
    ['name', limits.nameMaxLength],
    ['tag', limits.tagMaxLength],
  ])(
    'counts a %s in code points, as the spec does: at most %i emoji beyond U+FFFF, each two UTF-16 code units',
    async (field, max) => {
      const spec = await loadOpenApiExchanges();
      const operation = spec.operationOf({ method: 'POST', path: '/plants' });
      if (operation === undefined) throw new Error('openapi.yaml has no POST /plants');
      const body = (count: number) =>
        JSON.stringify({ id: 1, name: 'Fern', [field]: '\u{1F33F}'.repeat(count) });
      const serviceAccepts = (text: string) => {
        try {
          parseNewPlant(JSON.parse(text), text);
          return true;
        } catch {
          return false;
        }
      };

      const answers = [max, max + 1].map((count) => [
        serviceAccepts(body(count)),
        spec.acceptsBody(operation, body(count)),
      ]);

      expect(answers).toStrictEqual([
        [true, true],
        [false, false],
      ]);
    },
  );

  it('accepts exactly the names and tags the spec accepts, and answers a Plant the spec accepts', async () => {
    const spec = await loadOpenApiExchanges();
    const operation = spec.operationOf({ method: 'POST', path: '/plants' });
    const answer = {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    };
    if (operation === undefined) throw new Error('openapi.yaml has no POST /plants');

    fc.assert(
      fc.property(text(limits.nameMaxLength), fc.option(text(limits.tagMaxLength)), (name, tag) => {
        const body = JSON.stringify(tag === null ? { id: 1, name } : { id: 1, name, tag });
        let plant: unknown;
        try {
          const { id: _, ...accepted } = parseNewPlant(JSON.parse(body), body);
          plant = accepted;
        } catch {
          plant = undefined;
        }

        expect(plant !== undefined).toBe(spec.acceptsBody(operation, body));
        if (plant !== undefined) {
          const checked = { ...answer, body: JSON.stringify(plant) };
          expect(spec.checkAnswer({ method: 'POST', path: '/plants' }, checked)).toStrictEqual([]);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe("openapi.yaml's new-plant webhook", () => {
  const webhook = document.webhooks['/plant/webhook'].post;
  const parameter = (ref: string) =>
    document.components.parameters[ref.split('/').at(-1) ?? ''] as {
      name: string;
      in: string;
      required: boolean;
      schema: { pattern: string };
    };

  it("keeps the original's POST /plant/webhook: a NewPlant body, answered 200, signed instead of a token", () => {
    expect(Object.keys(document.webhooks)).toStrictEqual(['/plant/webhook']);
    expect(webhook.requestBody.content['application/json'].schema).toStrictEqual({
      $ref: '#/components/schemas/NewPlant',
    });
    expect(webhook.responses['200'].description).toBe(
      'Return a 200 status to indicate that the data was received successfully',
    );
    expect(webhook.security).toStrictEqual([]);
  });

  it('names the three Standard Webhooks headers, required, in the form the deliverer sends', () => {
    const record = insertRecord({ id: '9223372036854775807', name: 'Fern' });
    const event = newPlantEvent(JSON.stringify(record));
    const key = signingKeyOf(`whsec_${Buffer.alloc(32, 1).toString('base64')}`);
    const sent: Record<string, string> = signatureHeaders(key, event.webhookId, 1767225600, '{}');

    const headers = (webhook.parameters as { $ref: string }[]).map(({ $ref }) => parameter($ref));

    expect(headers.map(({ name }) => name)).toStrictEqual(Object.keys(sent));
    for (const header of headers) {
      expect(header).toMatchObject({ in: 'header', required: true });
      expect(sent[header.name]).toMatch(new RegExp(header.schema.pattern));
    }
  });

  it("states the deliverer's deadline and retry schedule, in numbers and in words", () => {
    const words = (seconds: number) =>
      seconds < 60
        ? `${seconds} s`
        : seconds < 3600
          ? `${seconds / 60} min`
          : `${seconds / 3600} h`;
    const schedule = retryDelaysSeconds.map(words);

    expect(webhook['x-delivery']).toStrictEqual({
      deadlineSeconds: deliveryDeadlineMs / 1000,
      retryDelaysSeconds: [...retryDelaysSeconds],
      retryJitter,
      maxAttempts,
    });
    const prose = webhook.description.replace(/\s+/g, ' ');
    expect(prose).toContain(
      `after ${schedule.slice(0, -1).join(', ')} and ${schedule.at(-1)} (each wait up to ${retryJitter * 100} % longer`,
    );
    expect(prose).toContain(`${maxAttempts} attempts`);
    expect(prose).toContain(`within ${deliveryDeadlineMs / 1000} seconds`);
  });
});
