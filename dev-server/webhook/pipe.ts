/**
 * One value an event pattern's field may match: an exact string, any string but those listed
 * (`anything-but`), or the field's presence or absence (`exists`). The local pipe knows no other
 * operator, so a filter that uses one does not compile.
 */
export type PatternValue =
  | string
  | { readonly 'anything-but': string | readonly string[] }
  | { readonly exists: boolean };

/**
 * The EventBridge pattern of the pipe's filter: each field lists the values it may have, any one
 * of which matches, and a nested object matches a nested field.
 */
export type EventPattern = {
  readonly [field: string]: readonly PatternValue[] | EventPattern;
};

/**
 * Whether `event` matches `pattern` as EventBridge matches: every field, one of its values. A
 * field the event lacks, or holds an object in where the pattern expects a value, is absent: only
 * `exists: false` matches it, as EventBridge matches `exists` on leaves only.
 */
export function matchesPattern(pattern: EventPattern, event: unknown): boolean {
  const fields = event !== null && typeof event === 'object' ? event : {};
  return Object.entries(pattern).every(([field, expected]) => {
    const value = (fields as Record<string, unknown>)[field];
    if (!Array.isArray(expected)) return matchesPattern(expected as EventPattern, value);
    const leaf = value === null || typeof value !== 'object' ? value : undefined;
    return (expected as readonly PatternValue[]).some((each) => matchesValue(each, leaf));
  });
}

function matchesValue(expected: PatternValue, value: unknown): boolean {
  if (typeof expected === 'string') return value === expected;
  if ('exists' in expected) return expected.exists === (value !== undefined);
  const excluded = expected['anything-but'];
  return (
    value !== undefined &&
    !(typeof excluded === 'string' ? [excluded] : excluded).includes(value as string)
  );
}
