import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as z from 'zod/mini';
import { idSchema, limits, newPlantSchema, plantSchema } from '../functions/plants/new-plant.ts';

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

/** The zod schema as JSON Schema. The id's exactness lives in parseNewPlant, so it is named here. */
function fromZod(schema: z.ZodMiniType): JsonSchema {
  const { $schema: _, ...jsonSchema } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema: generated }) => {
      if (zodSchema === idSchema) Object.assign(generated, { type: 'integer', format: 'int64' });
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

  it('documents every status of the contract, each error with the Error schema', () => {
    const statuses = Object.keys(createPlant.responses);

    expect(statuses).toStrictEqual(['200', '400', '401', '403', '409', '413', '415', '500', '503']);
    for (const status of statuses.filter((code) => code !== '200')) {
      expect(createPlant.responses[status].content['application/json'].schema).toStrictEqual({
        $ref: '#/components/schemas/Error',
      });
    }
  });
});
