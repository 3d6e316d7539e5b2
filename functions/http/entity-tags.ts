import { HttpError } from './http-error.ts';

/**
 * `If-Match` and `If-None-Match` (RFC 9110 13.1.1, 13.1.2): `*`, or a comma-separated list of
 * entity tags, each `"opaque"` or, weak, `W/"opaque"`. A header that does not parse is refused
 * with a 400 naming it rather than ignored: an ignored If-Match would turn a conditional write
 * into an unconditional one. So is a header that lists no tag at all (empty, or only commas),
 * which RFC 9110's grammar allows as a list of none: no client sends it on purpose, and a missing
 * ETag pasted into the header is told so rather than answered 412, or 200 as if unconditional
 * (docs/decisions/0130-preconditions.md).
 */
export type EntityTagList =
  | { readonly any: true }
  | { readonly any: false; readonly tags: readonly EntityTag[] };

export type EntityTag = { readonly weak: boolean; readonly opaque: string };

/** Longer lists are refused: a client names the few versions it has read, not hundreds. */
export const maxEntityTags = 16;

/** `etagc` of RFC 9110: any visible character but the double quote, or obs-text. */
const entityTag = /^(W\/)?"([\x21\x23-\x7E\x80-\xFF]*)"$/;

/** The list `header` holds; undefined when the request does not carry it. */
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

/**
 * The list's elements, split at the commas outside double quotes (an opaque part may hold a
 * comma), each without the optional whitespace around it; empty ones are dropped, as RFC 9110
 * 5.6.1 asks. Whatever is not a well-formed tag, an unclosed quote included, is left whole for
 * the tag pattern to refuse.
 */
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

/**
 * Without the optional whitespace (OWS, RFC 9110 5.6.3) at either end: spaces and tabs only.
 * `String.prototype.trim` would also take U+00A0 and other Unicode spaces, so a header with one
 * beside a tag would be evaluated rather than refused as malformed.
 */
function trimOws(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** The strong entity tag of a validator: its text in double quotes. */
export function strongEntityTag(opaque: string): string {
  return `"${opaque}"`;
}

/**
 * Weak comparison (RFC 9110 8.8.3.2), as If-None-Match uses it: the opaque parts are equal,
 * whether either is weak. `*` matches any current representation.
 */
export function matchesWeakly(list: EntityTagList, opaque: string): boolean {
  return list.any || list.tags.some((tag) => tag.opaque === opaque);
}

/**
 * The opaque parts strong comparison (RFC 9110 8.8.3.2) can match, as If-Match uses it: a weak
 * entity tag never matches, so it names nothing.
 */
export function strongOpaques(list: EntityTagList & { any: false }): string[] {
  return list.tags.filter((tag) => !tag.weak).map((tag) => tag.opaque);
}
