import { describe, expect, it } from 'vitest';
import { type EventPattern, matchesPattern } from '../../../dev-server/webhook/pipe.ts';

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

  it('refuses, at compile time, an operator it would misread', () => {
    const misread: EventPattern[] = [
      // @ts-expect-error: no prefix matching
      { tag: [{ prefix: 'plant-' }] },
      // @ts-expect-error: anything-but takes strings only
      { tag: [{ 'anything-but': { prefix: 'plant-' } }] },
      // @ts-expect-error: no numeric matching
      { tag: [{ numeric: ['>', 0] }] },
      // @ts-expect-error: exists takes a boolean
      { tag: [{ exists: 'yes' }] },
      // @ts-expect-error: values are strings
      { tag: [7] },
    ];

    expect(misread).toHaveLength(5);
  });
});
