/** A value a field may match; the local pipe knows no other operator, so no other compiles. */
type PatternValue =
  | string
  | { readonly 'anything-but': string | readonly string[] }
  | { readonly exists: boolean };

/** The pipe's EventBridge filter: any of a field's values matches; an object, a nested field. */
export type EventPattern = {
  readonly [field: string]: readonly PatternValue[] | EventPattern;
};

/** Whether `event` matches `pattern` as EventBridge does, `exists` on leaves only. */
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
  return value !== undefined && ![expected['anything-but']].flat().includes(value as string);
}
