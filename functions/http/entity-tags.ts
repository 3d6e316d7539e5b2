import { HttpError } from './http-error.ts';

/**
 * RFC 9110 13.1.1-2. A header that does not parse, or lists no tag, is a 400, not ignored: an
 * ignored If-Match would make a write unconditional (docs/decisions/0130-preconditions.md).
 */
export type EntityTagList =
  | { readonly any: true }
  | { readonly any: false; readonly tags: readonly EntityTag[] };

export type EntityTag = { readonly weak: boolean; readonly opaque: string };

/** A client names the few versions it has read, not hundreds. */
export const maxEntityTags = 16;

/** RFC 9110's `etagc`. */
const entityTag = /^(W\/)?"([\x21\x23-\x7E\x80-\xFF]*)"$/;

export function parseEntityTags(
  name: 'If-Match' | 'If-None-Match',
  value: string | undefined,
): EntityTagList | undefined {
  if (value === undefined) return undefined;
  const trimmed = trimOws(value);
  if (trimmed === '*') return { any: true };
  const elements = listElements(trimmed);
  if (elements.length === 0) {
    throw new HttpError(400, `${name} must be * or a list of entity tags such as "abc"`);
  }
  if (elements.length > maxEntityTags) {
    throw new HttpError(400, `${name} must name at most ${maxEntityTags} entity tags`);
  }
  const tags = elements.map((element) => {
    const match = entityTag.exec(element);
    if (!match) {
      throw new HttpError(
        400,
        `${name} must be * or a list of entity tags such as "abc" or W/"abc", each in double quotes`,
      );
    }
    return { weak: match[1] !== undefined, opaque: match[2] ?? '' };
  });
  return { any: false, tags };
}

/** Split at commas outside quotes (an opaque part may hold one); empties dropped (RFC 9110 5.6.1). */
function listElements(value: string): string[] {
  const elements: string[] = [];
  let quoted = false;
  let start = 0;
  for (let index = 0; index < value.length; index++) {
    const char = value[index];
    if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) {
      elements.push(value.slice(start, index));
      start = index + 1;
    }
  }
  elements.push(value.slice(start));
  return elements.map(trimOws).filter((element) => element !== '');
}

/** OWS (RFC 9110 5.6.3) is spaces and tabs only; `trim` would also take U+00A0. */
function trimOws(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

export function strongEntityTag(opaque: string): string {
  return `"${opaque}"`;
}

/** Weak comparison (RFC 9110 8.8.3.2), as If-None-Match uses it. */
export function matchesWeakly(list: EntityTagList, opaque: string): boolean {
  return list.any || list.tags.some((tag) => tag.opaque === opaque);
}

/** What strong comparison (If-Match) can match: never a weak tag. */

export function strongOpaques(list: EntityTagList & { any: false }): string[] {
  return list.tags.filter((tag) => !tag.weak).map((tag) => tag.opaque);
}
