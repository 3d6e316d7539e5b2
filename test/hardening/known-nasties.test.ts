import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContractAnswer } from '../support/contract.ts';
import { fakeEvent } from '../support/fake-event.ts';
import { bodyOf, type PlantApiHarness, startPlantApi } from '../support/plant-api-harness.ts';

let api: PlantApiHarness;
let token: string;
const freshId = () => api.freshId();

beforeAll(async () => {
  api = await startPlantApi();
  token = await api.issuer.mint({ expiresIn: 3600 });
});
afterAll(() => api.close());

const post = (body: string, isBase64Encoded = false) =>
  api.invoke(fakeEvent({ token, body, isBase64Encoded }));

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('POST /plants with known nasty bodies', () => {
  it.each([
    ['a top-level __proto__ key', '{"__proto__":{"admin":true},"id":1,"name":"x"}', /"__proto__"/],
    ['a nested __proto__ key', '{"id":1,"name":"x","a":{"b":{"__proto__":{}}}}', /"__proto__"/],
    [
      'constructor.prototype',
      '{"constructor":{"prototype":{"x":1}},"id":1,"name":"x"}',
      /"constructor"/,
    ],
    ['a UTF-8 BOM before the object', '\uFEFF{"id":1,"name":"x"}', /not valid JSON/],
    ['a raw NUL byte after the object', '{"id":1,"name":"x"}\u0000', /not valid JSON/],
    ['a raw NUL byte inside a string', '{"id":1,"name":"a\u0000b"}', /not valid JSON/],
    ['an escaped NUL in the name', '{"id":1,"name":"a\\u0000b"}', /^name must not contain control/],
    ['an escaped lone high surrogate', '{"id":1,"name":"a\\ud800"}', /^name must not contain/],
    ['an escaped lone low surrogate', '{"id":1,"name":"\\udc00a"}', /^name must not contain/],
    ['a raw lone surrogate', '{"id":1,"name":"a\ud800"}', /^name must not contain/],
    ['a reversed surrogate pair', '{"id":1,"name":"\\udc00\\ud800"}', /^name must not contain/],
    ['a tab in the name', '{"id":1,"name":"a\\tb"}', /^name must not contain/],
    ['a DEL in the name', '{"id":1,"name":"a\\u007f"}', /^name must not contain/],
    ['a C1 control in the tag', '{"id":1,"name":"a","tag":"\\u0085"}', /^tag must not contain/],
    ['id 1e400', '{"id":1e400,"name":"x"}', /^id must be an integer$/],
    ['id -1e400', '{"id":-1e400,"name":"x"}', /^id must be an integer$/],
    ['id 1e-400 (JSON.parse says 0)', '{"id":1e-400,"name":"x"}', /^id must be an integer$/],
    ['id 0.5', '{"id":0.5,"name":"x"}', /^id must be an integer$/],
    [
      'id 9223372036854775807.5',
      '{"id":9223372036854775807.5,"name":"x"}',
      /^id must be an integer$/,
    ],
    ['id 9223372036854775808.0', '{"id":9223372036854775808.0,"name":"x"}', /^id must be between/],
    ['id 1e19', '{"id":1e19,"name":"x"}', /^id must be between/],
    ['id 1e999999999999', '{"id":1e999999999999,"name":"x"}', /^id must be an integer$/],
    ['id as an int64 string', '{"id":"9223372036854775807","name":"x"}', /^id must be an integer$/],
    ['id as an array', '{"id":[1],"name":"x"}', /^id must be an integer$/],
    ['id as an object', '{"id":{"$numberLong":"1"},"name":"x"}', /^id must be an integer$/],
    ['id null', '{"id":null,"name":"x"}', /^id must be an integer$/],
    ['id with a leading plus', '{"id":+1,"name":"x"}', /not valid JSON/],
    ['id with a leading zero', '{"id":01,"name":"x"}', /not valid JSON/],
    ['id NaN', '{"id":NaN,"name":"x"}', /not valid JSON/],
    ['id Infinity', '{"id":Infinity,"name":"x"}', /not valid JSON/],
    ['id as hex', '{"id":0x10,"name":"x"}', /not valid JSON/],
    ['name as a number', '{"id":1,"name":1}', /^name must be a string$/],
    ['name as an array of strings', '{"id":1,"name":["x"]}', /^name must be a string$/],
    ['name as an object', '{"id":1,"name":{"toString":"x"}}', /^name must be a string$/],
    ['tag as a number', '{"id":1,"name":"x","tag":5}', /^tag must be a string$/],
    ['tag as false', '{"id":1,"name":"x","tag":false}', /^tag must be a string$/],
    ['trailing garbage', '{"id":1,"name":"x"}x', /not valid JSON/],
    ['a trailing comma', '{"id":1,"name":"x",}', /not valid JSON/],
    ['single quotes', "{'id':1,'name':'x'}", /not valid JSON/],
    ['a comment', '{"id":1,/* c */"name":"x"}', /not valid JSON/],
    ['two objects', '{"id":1,"name":"x"}{"id":2,"name":"y"}', /not valid JSON/],
    ['only whitespace', ' \t\r\n ', /^Request body is required$/],
  ])('answers 400 for %s', async (_case, body, message) => {
    const result = await post(body);

    expect(expectContractAnswer(result).status).toBe(400);
    expect((bodyOf(result) as { message: string }).message).toMatch(message);
  });

  it.each([
    ['arrays 100 deep', () => nested(100)],
    ['arrays 3000 deep', () => nested(3000)],
    ['arrays 8000 deep (the most 16 KiB holds)', () => nested(8000)],
    ['objects 2700 deep', () => nestedObject(2700)],
  ])('answers a NewPlant beside %s with 200 or 400, never 5xx', async (_case, deep) => {
    const result = await post(`{"id":${freshId()},"name":"Deep","deep":${deep()}}`);

    // JSON.parse with a reviver recurses: past the stack's depth it is a 400, below it a 200.
    expect([200, 400]).toContain(expectContractAnswer(result).status);
  });

  it('answers a body that is only a deeply nested array with 400', async () => {
    const result = await post(nested(8190));

    expect(expectContractAnswer(result).status).toBe(400);
  });

  it.each([
    ['-0', '0'],
    ['-0.0', '0'],
    ['1.0', '1'],
    ['1e2', '100'],
    ['1E+2', '100'],
    ['12.50e1', '125'],
    ['9223372036854775807.0', '9223372036854775807'],
    ['922337203685477580.7e1', '9223372036854775807'],
    ['-9223372036854775808.000', '-9223372036854775808'],
    ['9007199254740993', '9007199254740993'],
  ])('stores id %s as exactly %s', async (literal, stored) => {
    // Literals of one integer share a name, so the second is an idempotent replay of the first.
    const name = `Literal ${stored}`;

    const result = await post(`{"id":${literal},"name":"${name}"}`);

    expect(expectContractAnswer(result)).toStrictEqual({ status: 200, plant: { name } });
    expect(await api.dynalite.getItem(api.tableName, stored)).toStrictEqual({
      id: { N: stored },
      name: { S: name },
    });
  });

  it('reads the last of duplicate keys, for the id source text as for the value', async () => {
    const [first, last] = [freshId(), freshId()];

    const result = await post(`{"id":${first},"id":${last},"name":"Twice"}`);

    expect(expectContractAnswer(result).status).toBe(200);
    expect(await api.dynalite.getItem(api.tableName, last)).toMatchObject({ name: { S: 'Twice' } });
    expect(await api.dynalite.getItem(api.tableName, first)).toBeUndefined();
  });

  it('takes only the top-level id, not one nested in another member', async () => {
    const [outer, inner] = [freshId(), freshId()];

    const result = await post(`{"x":{"id":${inner}},"id":${outer},"name":"Outer"}`);

    expect(expectContractAnswer(result).status).toBe(200);
    expect(await api.dynalite.getItem(api.tableName, outer)).toMatchObject({
      name: { S: 'Outer' },
    });
    expect(await api.dynalite.getItem(api.tableName, inner)).toBeUndefined();
  });

  it('accepts a constructor key that is a plain value and never echoes it', async () => {
    const result = await post(`{"id":${freshId()},"name":"Ctor","constructor":"x","toString":1}`);

    expect(expectContractAnswer(result)).toStrictEqual({ status: 200, plant: { name: 'Ctor' } });
  });

  it.each([
    ['1 MiB of text', 'x'.repeat(1024 * 1024 + 1), false],
    ['1 MiB of JSON', `{"id":1,"name":"x","pad":"${'p'.repeat(1024 * 1024)}"}`, false],
    ['1 MiB base64-encoded', Buffer.alloc(1024 * 1024 + 1, 0x20).toString('base64'), true],
    ['16 KiB + 1 of multi-byte characters', `"${'é'.repeat(8192)}"`, false],
    ['16 KiB + 1 of invalid base64', '!'.repeat(22_000), true],
  ])('answers 413 for %s, before parsing it', async (_case, body, base64) => {
    const result = await post(body, base64);

    expect(expectContractAnswer(result).status).toBe(413);
    expect(bodyOf(result)).toStrictEqual({
      error: 413,
      message: 'Request body must be at most 16384 bytes',
    });
  });

  it.each([
    ['invalid UTF-8 (0xFF)', Buffer.from([0x7b, 0xff, 0x7d]), 'Request body is not valid UTF-8'],
    [
      'an overlong encoding',
      Buffer.from('{"id":1,"name":"\xC0\xAF"}', 'latin1'),
      'Request body is not valid UTF-8',
    ],
    [
      'a UTF-8-encoded surrogate',
      Buffer.from('{"id":1,"name":"\xED\xA0\x80"}', 'latin1'),
      'Request body is not valid UTF-8',
    ],
    [
      'a truncated sequence',
      Buffer.from('{"id":1,"name":"\xE2\x82"}', 'latin1'),
      'Request body is not valid UTF-8',
    ],
    ['a UTF-8 BOM', Buffer.from('\uFEFF{"id":1,"name":"x"}'), 'Request body is not valid JSON'],
    [
      'UTF-16 text',
      Buffer.from('{"id":1,"name":"x"}', 'utf16le'),
      'Request body is not valid JSON',
    ],
  ])('answers 400 for a base64 body of %s', async (_case, bytes, message) => {
    const result = await post(bytes.toString('base64'), true);

    expect(expectContractAnswer(result).status).toBe(400);
    expect(bodyOf(result)).toStrictEqual({ error: 400, message });
  });

  it.each([
    ['characters outside the alphabet', 'eyJpZCI6MX0*'],
    ['a length that is not a multiple of 4', 'eyJpZCI6MX0'],
    ['padding in the middle', 'eyJp=ZCI6MX0='],
    ['URL-safe characters', 'eyJpZCI6MSwibmFtZSI6Ij8_In0-'],
    ['a line break', 'eyJpZCI6\nMX0='],
  ])('answers 400 for an invalid base64 body: %s', async (_case, body) => {
    const result = await post(body, true);

    expect(bodyOf(result)).toStrictEqual({
      error: 400,
      message: 'Request body is not valid base64',
    });
  });
});
