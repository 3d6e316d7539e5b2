import fc from 'fast-check';
import { exactJson } from '../clients/plant-store-client.ts';
import {
  exactIntegerBounds,
  type OpenApiExchanges,
  type Operation,
  type Parameter,
} from './openapi-exchange.ts';

// Arbitraries for `npm run contract`: the spec judges each value; these need only reach the edges.

export type Json = null | boolean | number | string | bigint | Json[] | { [key: string]: Json };
export type Schema = { [keyword: string]: unknown };

const composedUnits =
  'e\u0301 \u0958 \uFB2C \u{1D160} \u1E17\u0323 \u{1F33F} \u{1F469}\u{1F3FD}\u200D\u{1F4BB} \u0645\u06CC\u200C\u062E Fern';
const writtenUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 4, arbitrary: fc.constantFrom(...composedUnits.split(' ')) },
);
const suspectUnit = fc.constantFrom(
  ...'\n\t\u0000\u007F\u202E\u200B\u2066\uFEFF\u2028\uD800\u200D'.split(''),
);

function textOf(min: number, max: number): fc.Arbitrary<string> {
  const short = Math.min(max, min + 12);
  return fc
    .oneof(fc.integer({ min, max: short }), fc.integer({ min: Math.max(min, max - 4), max }))
    .chain((length) =>
      fc
        .array(writtenUnit, { minLength: length, maxLength: length })
        .map((units) => [...units.join('')].slice(0, length).join('')),
    );
}

export function describedValue(schema: Schema, spec: OpenApiExchanges): fc.Arbitrary<Json> {
  const resolved = merged(schema, spec);
  switch (resolved.type) {
    case 'object': {
      const properties = (resolved.properties ?? {}) as Record<string, Schema>;
      const required = new Set((resolved.required ?? []) as string[]);
      const members = Object.fromEntries(
        Object.entries(properties).map(([name, each]) => [name, describedValue(each, spec)]),
      );
      const requiredKeys = Object.keys(properties).filter((name) => required.has(name));
      const record = fc.record(members, { requiredKeys });
      if (resolved.additionalProperties === false) return record;
      return fc
        .tuple(record, extraMembers(Object.keys(properties)))
        .map(([own, extra]) => ({ ...extra, ...own }));
    }
    case 'string': {
      const min = Number(resolved.minLength ?? 0);
      const max = Number(resolved.maxLength ?? min + 40);
      return textOf(min, max);
    }
    case 'integer': {
      const [min, max] = integerBounds(resolved);
      return fc.oneof(fc.bigInt({ min, max }), fc.constantFrom(min, max, 0n, 2n ** 53n + 1n));
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;
  }
}

function brokenValue(schema: Schema, spec: OpenApiExchanges): fc.Arbitrary<Json> {
  const resolved = merged(schema, spec);
  const wrongType = fc.constantFrom<Json>(null, true, 1.5, 'text', [], {});
  switch (resolved.type) {
    case 'object': {
      const properties = (resolved.properties ?? {}) as Record<string, Schema>;
      const names = Object.keys(properties);
      if (names.length === 0) return wrongType;
      return fc
        .tuple(describedValue(schema, spec), fc.constantFrom(...names), fc.boolean())
        .chain(([value, name, drop]) => {
          const object = value as Record<string, Json>;
          if (drop) {
            const { [name]: _, ...rest } = object;
            return fc.constant(rest as Json);
          }
          const broken = brokenValue(properties[name] ?? {}, spec);
          return broken.map((part) => ({ ...object, [name]: part }));
        });
    }
    case 'string': {
      const min = Number(resolved.minLength ?? 0);
      const max = Number(resolved.maxLength ?? min + 40);
      const breaks: fc.Arbitrary<Json>[] = [
        wrongType,
        textOf(max + 1, max + 6),
        fc.tuple(textOf(min, max), suspectUnit, fc.nat()).map(([text, suspect, at]) => {
          const units = [...text];
          units.splice(at % (units.length + 1), 0, suspect);
          return units.join('');
        }),
      ];
      if (min > 0) breaks.push(fc.constant(''));
      return fc.oneof(...breaks);
    }
    case 'integer': {
      const [min, max] = integerBounds(resolved);
      // Far enough outside that a double, which a JavaScript validator reads it as, is outside too.
      return fc.oneof(
        wrongType,
        fc.bigInt({ min: max * 2n + 2n, max: max * 8n }),
        fc.bigInt({ min: min * 8n, max: min * 2n - 2n }),
        fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((value) => !Number.isInteger(value)),
      );
    }
    default:
      return wrongType;
  }
}

export function bodyText(schema: Schema, spec: OpenApiExchanges): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: describedValue(schema, spec).map(exactJson) },
    { weight: 4, arbitrary: brokenValue(schema, spec).map(exactJson) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('[]', '"plant"', '12', 'null', '{"id":1,', '', '{"name":"Fern"}}'),
    },
  );
}

function extraMembers(own: string[]): fc.Arbitrary<Record<string, Json>> {
  // The service refuses `__proto__` and `constructor` on purpose, which the schema cannot say.
  const key = fc
    .string({ minLength: 1, maxLength: 8 })
    .filter((name) => ![...own, '__proto__', 'constructor'].includes(name));
  const value = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  return fc.dictionary(key, value, { maxKeys: 2 });
}

function integerBounds(schema: Schema): [bigint, bigint] {
  const [lowest, highest] = exactIntegerBounds[String(schema.format)] ?? [
    BigInt(Number.MIN_SAFE_INTEGER),
    BigInt(Number.MAX_SAFE_INTEGER),
  ];
  // A bound the document spells as a JSON number may have been rounded: the format's is exact.
  const min = typeof schema.minimum === 'number' ? BigInt(schema.minimum) : lowest;
  const max = typeof schema.maximum === 'number' ? BigInt(schema.maximum) : highest;
  return [min > lowest ? min : lowest, max < highest ? max : highest];
}

function merged(schema: Schema, spec: OpenApiExchanges): Schema {
  const resolved = spec.resolve(schema as never, '').value as Schema;
  if (!Array.isArray(resolved.allOf)) return resolved;
  const parts = (resolved.allOf as Schema[]).map((part) => merged(part, spec));
  return {
    type: 'object',
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
    required: parts.flatMap((part) => (part.required ?? []) as string[]),
  };
}

export function requestParameters(spec: OpenApiExchanges, operation: Operation): Parameter[] {
  return spec.parameters(operation).filter((each) => ['path', 'query'].includes(each.in));
}

type ParameterTexts = { readonly texts: readonly string[]; readonly madeUp: boolean };

/** An `x-issued-in-link` value only the API issues: a made-up one is flagged. */
export function parameterTarget(
  operation: Operation,
  parameters: readonly Parameter[],
  spec: OpenApiExchanges,
  mode: 'valid' | 'any',
): fc.Arbitrary<{ path: string; madeUp: boolean }> {
  // A fresh valid id: the check must not delete a plant someone else stored under a well-known id.
  const changes = !['GET', 'HEAD', 'POST'].includes(operation.method);
  const each = parameters.map((parameter) => parameterTexts(parameter, spec, mode, changes));
  return fc.tuple(...each).map((chosen) => {
    let path = operation.template;
    const query: string[] = [];
    for (const [index, { in: where, name }] of parameters.entries()) {
      const texts = chosen[index]?.texts ?? [];
      if (where === 'path') {
        path = path.replace(`{${name}}`, encodeURIComponent(texts[0] ?? ''));
      } else {
        query.push(
          ...texts.map((text) => `${encodeURIComponent(name)}=${encodeURIComponent(text)}`),
        );
      }
    }
    const madeUp = chosen.some((texts) => texts.madeUp);
    return { path: query.length === 0 ? path : `${path}?${query.join('&')}`, madeUp };
  });
}

function parameterTexts(
  parameter: Parameter,
  spec: OpenApiExchanges,
  mode: 'valid' | 'any',
  fresh: boolean,
): fc.Arbitrary<ParameterTexts> {
  const absent = fc.constant<ParameterTexts>({ texts: [], madeUp: false });
  const one = (text: fc.Arbitrary<string>, madeUp = false) =>
    text.map((value): ParameterTexts => ({ texts: [value], madeUp }));
  if (parameter.definition['x-issued-in-link'] !== undefined) {
    if (mode === 'valid') return absent;
    const madeUp = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.stringMatching(/^[A-Za-z0-9_-]{39}$/),
      fc.constant(''),
    );
    return fc.oneof({ weight: 2, arbitrary: absent }, { weight: 1, arbitrary: one(madeUp, true) });
  }
  const valid = validText(parameter.schema, spec, fresh);
  const leftOut = parameter.required ? [] : [{ weight: 2, arbitrary: absent }];
  if (mode === 'valid') return fc.oneof(...leftOut, { weight: 3, arbitrary: one(valid) });
  const broken = brokenText(parameter.schema, spec, parameter.in === 'path');
  const twice = fc.tuple(valid, valid).map((texts): ParameterTexts => ({ texts, madeUp: false }));
  return fc.oneof(
    ...leftOut,
    { weight: 3, arbitrary: one(valid) },
    ...(broken === undefined ? [] : [{ weight: 3, arbitrary: one(broken) }]),
    ...(parameter.in === 'query' ? [{ weight: 1, arbitrary: twice }] : []),
  );
}

function validText(schema: Schema, spec: OpenApiExchanges, fresh: boolean): fc.Arbitrary<string> {
  const resolved = merged(schema, spec);
  if (resolved.type !== 'integer') {
    return describedValue(schema, spec).map((value) =>
      typeof value === 'string' ? value : exactJson(value),
    );
  }
  const [min, max] = integerBounds(resolved);
  // Unbiased: fast-check otherwise favours values near 0 and the bounds, ids others may hold.
  const random = fc.noBias(fc.bigInt({ min, max }));
  return (fresh ? random : fc.oneof(random, fc.constantFrom(min, max))).map(String);
}

/** The text of no value the schema accepts; never empty in a path, where it is another route. */
function brokenText(schema: Schema, spec: OpenApiExchanges, inPath: boolean) {
  const resolved = merged(schema, spec);
  if (resolved.type === 'string') {
    const breaks: fc.Arbitrary<string>[] = [];
    if (Number(resolved.minLength ?? 0) > 0 && !inPath) breaks.push(fc.constant(''));
    if (typeof resolved.maxLength === 'number') {
      breaks.push(fc.constant('x'.repeat(resolved.maxLength + 1)));
    }
    return breaks.length === 0 ? undefined : fc.oneof(...breaks);
  }
  if (resolved.type !== 'integer') return undefined;
  const [min, max] = integerBounds(resolved);
  const [lowest, highest] = exactIntegerBounds[String(resolved.format)] ?? [min, max];
  const span = max - min + 8n;
  return fc.oneof(
    fc.bigInt({ min: max + 1n, max: max + span }).map(String),
    fc.bigInt({ min: min - span, max: min - 1n }).map(String),
    fc.constantFrom(highest + 1n, lowest - 1n).map(String),
    fc
      .tuple(validText(schema, spec, true), fc.constantFrom('0%s', '+%s', '%s.0', '%se0', ' %s'))
      .map(([text, spelling]) => spelling.replace('%s', text)),
    fc.constantFrom(...'-0 abc true null 1.5 -1.5 0x10 1,2'.split(' '), ...(inPath ? [] : [''])),
  );
}
