// openapi.yaml as judge of HTTP exchanges: @hyperjump/json-schema validates, this picks schemas.
import { readFile } from 'node:fs/promises';
import { BASIC } from '@hyperjump/json-schema/experimental';
import {
  type OutputUnit,
  registerSchema,
  unregisterSchema,
  type Validator,
  validate,
} from '@hyperjump/json-schema/openapi-3-1';
import { parse } from 'yaml';

export const specUrl = new URL('../openapi.yaml', import.meta.url);

/** A name only (`.invalid` never resolves), as a file: URI may not be. */
const documentUri = 'https://plant-store.invalid/openapi.json';
const openApi31Dialect = 'https://spec.openapis.org/oas/3.1/schema-base';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

type Located = { value: Json; pointer: string };
type Resolve = (value: Json, pointer: string) => Located;

export type Route = { readonly method: string; readonly path: string };

export type Answer = {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

export interface Operation {
  readonly name: string;
  readonly method: string;
  readonly template: string;
  readonly pointer: string;
  readonly definition: JsonObject;
}

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly schema: JsonObject;
  readonly schemaPointer: string;
  readonly definition: JsonObject;
}

export interface OpenApiExchanges {
  readonly document: JsonObject;
  readonly operations: readonly Operation[];
  operationOf(route: Route): Operation | undefined;
  parameters(operation: Operation): Parameter[];
  /** An integer parameter only as canonical decimals. */
  acceptsParameters(operation: Operation, target: string): boolean;
  requestBodySchema(operation: Operation): JsonObject | undefined;
  acceptsBody(operation: Operation, body: string): boolean;
  checkAnswer(route: Route, answer: Answer): string[];
  resolve: Resolve;
}

export async function loadOpenApiExchanges(url: URL = specUrl): Promise<OpenApiExchanges> {
  const document = parse(await readFile(url, 'utf8')) as JsonObject;
  const documentCheck = await validate(openApi31Dialect, document, BASIC);
  if (!documentCheck.valid) {
    throw new Error(
      `${url.pathname} is not a valid OpenAPI 3.1 document: ${describe(documentCheck.errors)}`,
    );
  }
  unregisterSchema(documentUri);
  registerSchema(document, documentUri, openApi31Dialect);

  // Compiled up front, so that checking an answer stays synchronous.
  const validators = new Map<string, Validator>();
  for (const pointer of schemaPointers(document)) {
    validators.set(pointer, await validate(`${documentUri}#${encodeURI(pointer)}`));
  }
  const check = (pointer: string, value: Json): OutputUnit[] => {
    const validator = validators.get(pointer);
    if (validator === undefined) throw new Error(`no schema compiled at ${pointer}`);
    const output = validator(value, BASIC);
    return output.valid ? [] : (output.errors ?? []);
  };

  const resolve = (value: Json, pointer: string) => resolveReference(document, value, pointer);
  const requestBody = (operation: Operation) => {
    const at = `${operation.pointer}/requestBody`;
    const { value, pointer } = resolve(operation.definition.requestBody ?? null, at);
    const content = ((value as JsonObject | null)?.content ?? {}) as JsonObject;
    const name = Object.keys(content).find(isJson) ?? '';
    const schema = (content[name] as JsonObject | undefined)?.schema;
    const schemaAt = `${pointer}/content/${pointerToken(name)}/schema`;
    return schema === undefined ? undefined : { schema, pointer: schemaAt };
  };

  return {
    document,
    operations: Object.entries((document.paths ?? {}) as JsonObject).flatMap(([path, item]) =>
      Object.keys(item as JsonObject).flatMap(
        (method) => operationOf(document, { method, path }) ?? [],
      ),
    ),
    operationOf: (route) => operationOf(document, route),
    parameters: (operation) => parametersOf(document, operation),
    acceptsParameters(operation, target) {
      const { path, query } = splitTarget(target);
      const pathValues = pathParameterValues(operation.template, path);
      const queryValues = new Map<string, string[]>();
      for (const [name, value] of new URLSearchParams(query)) {
        queryValues.set(name, [...(queryValues.get(name) ?? []), value]);
      }
      return parametersOf(document, operation).every((parameter) => {
        const texts =
          parameter.in === 'path'
            ? [pathValues?.get(parameter.name)].filter((text) => text !== undefined)
            : parameter.in === 'query'
              ? (queryValues.get(parameter.name) ?? [])
              : undefined;
        if (texts === undefined) return true;
        if (texts.length === 0) return !parameter.required;
        if (texts.length > 1 && parameter.schema.type !== 'array') return false;
        return texts.every((text) => {
          const value = parameterValue(parameter.schema, text);
          return value !== undefined && check(parameter.schemaPointer, value).length === 0;
        });
      });
    },
    requestBodySchema(operation) {
      const body = requestBody(operation);
      return body && (resolve(body.schema, '').value as JsonObject);
    },
    acceptsBody(operation, text) {
      const body = requestBody(operation);
      const value = parseJson(text);
      return body !== undefined && value !== undefined && check(body.pointer, value).length === 0;
    },
    checkAnswer(route, answer) {
      const operation = operationOf(document, route);
      const where =
        operation === undefined ? '/x-unmatched-route-responses' : `${operation.pointer}/responses`;
      const responses = (pointerGet(document, where) ?? {}) as JsonObject;
      const key = responseKey(responses, answer.status);
      if (key === undefined) {
        const documented = Object.keys(responses).join(', ') || 'none';
        const of = operation === undefined ? 'a route the spec does not list' : operation.name;
        return [`status ${answer.status} is not documented for ${of} (documented: ${documented})`];
      }
      const response = resolve(responses[key] ?? null, `${where}/${pointerToken(key)}`);
      return checkResponse(response.value as JsonObject, response.pointer, answer, check, resolve);
    },
    resolve,
  };
}

function checkResponse(
  response: JsonObject,
  pointer: string,
  answer: Answer,
  check: (pointer: string, value: Json) => OutputUnit[],
  resolve: Resolve,
): string[] {
  const violations: string[] = [];
  for (const [name, reference] of Object.entries((response.headers ?? {}) as JsonObject)) {
    // OpenAPI: a response header named Content-Type is ignored; the media type says it.
    if (name.toLowerCase() === 'content-type') continue;
    const header = resolve(reference, `${pointer}/headers/${pointerToken(name)}`);
    const definition = header.value as JsonObject;
    const text = answer.headers[name.toLowerCase()];
    if (text === undefined) {
      if (definition.required === true) violations.push(`header ${name} is required but absent`);
      continue;
    }
    const schemaPointer = `${header.pointer}/schema`;
    const errors = check(schemaPointer, headerValue(definition.schema, text, resolve));
    if (errors.length > 0)
      violations.push(`header ${name}: ${JSON.stringify(text)} ${describe(errors)}`);
  }

  const content = (response.content ?? {}) as JsonObject;
  const contentType = answer.headers['content-type'];
  if (Object.keys(content).length === 0) {
    if (answer.body.length > 0) violations.push('a body where the spec documents none');
    return violations;
  }
  if (contentType === undefined) return [...violations, 'no Content-Type for a documented body'];
  const media = mediaTypeOf(content, contentType);
  if (media === undefined) {
    return [
      ...violations,
      `media type ${contentType} is not documented (documented: ${Object.keys(content).join(', ')})`,
    ];
  }
  if (!isJson(media)) return violations;
  const value = parseJson(answer.body);
  if (value === undefined) return [...violations, 'the body is not JSON'];
  const errors = check(`${pointer}/content/${pointerToken(media)}/schema`, value);
  if (errors.length > 0) violations.push(`body ${describe(errors)}`);
  return violations;
}

function responseKey(responses: JsonObject, status: number): string | undefined {
  return [String(status), `${Math.floor(status / 100)}XX`, 'default'].find((key) =>
    Object.hasOwn(responses, key),
  );
}

function mediaTypeOf(content: JsonObject, contentType: string): string | undefined {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const documented = Object.keys(content);
  return [type, `${type.split('/')[0]}/*`, '*/*']
    .map((candidate) => documented.find((name) => name.toLowerCase() === candidate))
    .find((name) => name !== undefined);
}

function headerValue(schema: Json | undefined, text: string, resolve: Resolve): Json {
  const type = (resolve(schema ?? null, '').value as JsonObject | null)?.type;
  const trimmed = text.trim();
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(trimmed)) {
    return Number(trimmed);
  }
  if (type === 'boolean' && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  return text;
}

function operationOf(document: JsonObject, route: Route): Operation | undefined {
  const method = route.method.toLowerCase();
  const { path } = splitTarget(route.path);
  const paths = (document.paths ?? {}) as JsonObject;
  // A literal path wins over a template that also matches it, as OpenAPI says.
  const key = Object.hasOwn(paths, path)
    ? path
    : Object.keys(paths).find((template) => templateMatcher(template).test(path));
  if (key === undefined) return undefined;
  const definition = (paths[key] as JsonObject)[method] as JsonObject | undefined;
  if (definition === undefined) return undefined;
  const name =
    typeof definition.operationId === 'string' ? definition.operationId : `${route.method} ${key}`;
  return {
    name,
    method: method.toUpperCase(),
    template: key,
    pointer: `/paths/${pointerToken(key)}/${method}`,
    definition,
  };
}

function splitTarget(target: string): { path: string; query: string } {
  const [path = '', ...query] = target.split('?');
  return { path, query: query.join('?') };
}

function pathParameterValues(template: string, path: string): Map<string, string> | undefined {
  const names = [...template.matchAll(/\{([^}/]+)\}/g)].map((match) => match[1] ?? '');
  const values = templateMatcher(template, '([^/]+)').exec(path)?.slice(1);
  if (values === undefined) return undefined;
  return new Map(names.map((name, index) => [name, decodeComponent(values[index] ?? '')]));
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parametersOf(document: JsonObject, operation: Operation): Parameter[] {
  const itemPointer = operation.pointer.slice(0, operation.pointer.lastIndexOf('/'));
  const found = new Map<string, Parameter>();
  for (const where of [itemPointer, operation.pointer]) {
    const list = (pointerGet(document, `${where}/parameters`) ?? []) as Json[];
    for (const [index, reference] of list.entries()) {
      const at = `${where}/parameters/${index}`;
      const { value, pointer } = resolveReference(document, reference, at);
      const definition = value as JsonObject;
      const schema = resolveReference(document, definition.schema ?? {}, `${pointer}/schema`).value;
      found.set(`${definition.in} ${definition.name}`, {
        name: String(definition.name),
        in: definition.in as Parameter['in'],
        required: definition.required === true,
        schema: schema as JsonObject,
        schemaPointer: `${pointer}/schema`,
        definition,
      });
    }
  }
  return [...found.values()];
}

/** Integer format bounds checked exactly here: a validator reads a double. */
function parameterValue(schema: JsonObject, text: string): Json | undefined {
  switch (schema.type) {
    case 'integer': {
      if (!/^(?:0|-?[1-9]\d*)$/.test(text)) return undefined;
      const value = BigInt(text);
      const bounds = exactIntegerBounds[String(schema.format)];
      if (bounds !== undefined && (value < bounds[0] || value > bounds[1])) return undefined;
      return Number(value);
    }
    case 'number':
      return /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(text) ? Number(text) : undefined;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    default:
      return text;
  }
}

export const exactIntegerBounds: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

function templateMatcher(template: string, parameter = '[^/]+'): RegExp {
  const parts = template
    .split(/\{[^}/]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join(parameter)}$`);
}

function isJson(mediaType: string): boolean {
  return /^application\/(.+\+)?json$/i.test(mediaType);
}

function parseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** Every schema the document holds, wherever a response, header or parameter may point. */
function schemaPointers(value: Json, pointer = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const at = `${pointer}/${pointerToken(key)}`;
    return key === 'schema' ? [at] : schemaPointers(child, at);
  });
}

function resolveReference(document: JsonObject, value: Json, pointer: string): Located {
  let current = { value, pointer };
  for (let hops = 0; hops < 16; hops++) {
    const reference = (current.value as JsonObject | null)?.$ref;
    if (typeof reference !== 'string') return current;
    if (!reference.startsWith('#/'))
      throw new Error(`only local references are followed: ${reference}`);
    const target = decodeURI(reference.slice(1));
    current = { value: pointerGet(document, target) ?? null, pointer: target };
  }
  throw new Error(`a $ref chain does not end at ${pointer}`);
}

function pointerGet(document: Json, pointer: string): Json | undefined {
  let value: Json | undefined = document;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    value = value !== null && typeof value === 'object' ? (value as JsonObject)[key] : undefined;
  }
  return value;
}

function pointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function describe(errors: readonly OutputUnit[] | undefined): string {
  const failed = (errors ?? []).map((error) => {
    const keyword = error.keyword.split('/').at(-1);
    const at = decodeURI(error.absoluteKeywordLocation.split('#')[1] ?? '');
    return `${error.instanceLocation} fails ${keyword} (${at})`;
  });
  const shown = failed.slice(0, 3).join('; ');
  return failed.length > 3 ? `${shown}; and ${failed.length - 3} more` : shown;
}
