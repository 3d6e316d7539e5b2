import { describe, expect, it } from 'vitest';
import type { LocalQueue } from '../../../dev-server/webhook/local-queue.ts';
import { type EventPattern, matchesPattern, startPipe } from '../../../dev-server/webhook/pipe.ts';
import type { TableStream } from '../../../dev-server/webhook/table-stream.ts';

const pattern: EventPattern = {
  kind: ['new', 'old'],
  detail: { tag: [{ 'anything-but': ['hidden', 'secret'] }, { exists: false }] },
};

describe("the local pipe's filter (an EventBridge pattern)", () => {
  it.each([
    ['one of the listed values', true, { kind: 'old', detail: { tag: 'green' } }],
    ['a value not listed', false, { kind: 'other', detail: { tag: 'green' } }],
    ['a field absent where a value is listed', false, { detail: { tag: 'green' } }],
    ['a value anything-but excludes', false, { kind: 'new', detail: { tag: 'secret' } }],
    ['a value anything-but leaves', true, { kind: 'new', detail: { tag: 'public' } }],
    ['an absent field, by exists: false', true, { kind: 'new', detail: {} }],
    ['an absent parent, by exists: false', true, { kind: 'new' }],
    ['an object where a value is expected, as absent', true, { kind: 'new', detail: { tag: {} } }],
  ])('%s: matches %s', (_case, matched, event) => {
    expect(matchesPattern(pattern, event)).toBe(matched);
  });

  it('takes a single anything-but string and exists: true', () => {
    const single: EventPattern = { a: [{ 'anything-but': 'x' }], b: [{ exists: true }] };

    expect(matchesPattern(single, { a: 'y', b: 'z' })).toBe(true);
    expect(matchesPattern(single, { a: 'x', b: 'z' })).toBe(false);
    expect(matchesPattern(single, { a: 'y' })).toBe(false);
  });

  it.each([
    { prefix: 'plant-' },
    { 'anything-but': { prefix: 'plant-' } },
    { numeric: ['>', 0] },
    { exists: 'yes' },
    7,
  ])('refuses at start an operator it would misread: %j', (value) => {
    const start = () =>
      startPipe({
        stream: {} as TableStream,
        target: {} as LocalQueue,
        filter: { tag: [value] } as unknown as EventPattern,
        log: () => {},
      });

    expect(start).toThrow(/^The local pipe matches exact strings, anything-but strings and exists/);
  });
});
