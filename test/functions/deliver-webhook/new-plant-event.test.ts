import { describe, expect, it } from 'vitest';
import {
  MalformedRecordError,
  newPlantEvent,
} from '../../../functions/deliver-webhook/new-plant-event.ts';
import { insertRecord } from '../../support/webhook-events.ts';

/** JSON.parse with each number's source text, so that an int64 is read exactly. */
const exactIdOf = (payload: string): string => {
  let id = '';
  (JSON.parse as (text: string, reviver: (...args: unknown[]) => unknown) => unknown)(
    payload,
    (key, value, context) => {
      if (key === 'id') id = (context as { source: string }).source;
      return value;
    },
  );
  return id;
};

describe('newPlantEvent', () => {
  it.each([
    '9223372036854775807',
    '9223372036854775806',
    '-9223372036854775808',
    '0',
    '9007199254740993',
  ])('sends the id %s exactly as the record holds it', (id) => {
    const event = newPlantEvent(JSON.stringify(insertRecord({ id, name: 'Fern' })));

    expect(exactIdOf(event.payload)).toBe(id);
    expect(event.payload).toBe(`{"id":${id},"name":"Fern"}`);
  });

  it('carries the tag when the plant has one, and text exactly as stored', () => {
    const name = 'Fern "Blue"\\ 🌿 \u00e9';
    const tag = 'café';

    const event = newPlantEvent(JSON.stringify(insertRecord({ id: '7', name, tag })));

    expect(JSON.parse(event.payload)).toStrictEqual({ id: 7, name, tag });
    expect(Object.keys(JSON.parse(event.payload))).toStrictEqual(['id', 'name', 'tag']);
  });

  it('names the event msg_ and the stream record id, and dates it from the record', () => {
    const record = insertRecord(
      { id: '1', name: 'Fern' },
      { eventID: 'c4ca4238a0b923820dcc509a6f75849b', createdAt: 1_767_225_600_000 },
    );

    const event = newPlantEvent(JSON.stringify(record));

    expect(event.webhookId).toBe('msg_c4ca4238a0b923820dcc509a6f75849b');
    expect(event.createdAt).toBe(1_767_225_600_000);
  });

  it.each([
    ['without', undefined],
    ['with a non-number', '2026-01-01T00:00:00Z'],
  ])(
    'reads a record %s ApproximateCreationDateTime, which AWS marks optional, undated',
    (_case, value) => {
      const record = insertRecord({ id: '3', name: 'Fern' }) as {
        dynamodb: Record<string, unknown>;
      };
      record.dynamodb.ApproximateCreationDateTime = value;

      const event = newPlantEvent(JSON.stringify(record));

      expect(event.payload).toBe('{"id":3,"name":"Fern"}');
      expect(event).not.toHaveProperty('createdAt');
    },
  );

  it('gives two records of the same plant two ids', () => {
    const plant = { id: '1', name: 'Fern' };

    const first = newPlantEvent(JSON.stringify(insertRecord(plant)));
    const second = newPlantEvent(JSON.stringify(insertRecord(plant)));

    expect(first.payload).toBe(second.payload);
    expect(first.webhookId).not.toBe(second.webhookId);
  });

  const good = insertRecord({ id: '1', name: 'Fern' }) as {
    dynamodb: { NewImage: Record<string, unknown> };
  };
  const changed = (change: (record: Record<string, unknown> & typeof good) => void) => {
    const record = structuredClone(good) as Record<string, unknown> & typeof good;
    change(record);
    return JSON.stringify(record);
  };
  it.each([
    ['a body that is not JSON', 'not json'],
    ['a REMOVE', changed((record) => Object.assign(record, { eventName: 'REMOVE' }))],
    ['a MODIFY', changed((record) => Object.assign(record, { eventName: 'MODIFY' }))],
    ['no eventID', changed((record) => Object.assign(record, { eventID: undefined }))],
    [
      'an eventID that cannot be a header',
      changed((record) => Object.assign(record, { eventID: 'a b\r\nx' })),
    ],
    [
      'a number id',
      changed((record) => Object.assign(record.dynamodb.NewImage, { id: { N: '1.5' } })),
    ],
    [
      'an id out of int64',
      changed((record) =>
        Object.assign(record.dynamodb.NewImage, { id: { N: '9223372036854775808' } }),
      ),
    ],
    ['no name', changed((record) => Object.assign(record.dynamodb.NewImage, { name: undefined }))],
    [
      'a tag that is a number',
      changed((record) => Object.assign(record.dynamodb.NewImage, { tag: { N: '1' } })),
    ],
    ['null', 'null'],
  ])('refuses %s as a record no retry can deliver', (_case, body) => {
    expect(() => newPlantEvent(body)).toThrow(MalformedRecordError);
  });
});
