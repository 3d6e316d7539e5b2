import { randomBytes } from 'node:crypto';

declare const revisionBrand: unique symbol;

/**
 * Which write of a plant is stored: a fresh random value on every create and every replace
 * (docs/decisions/0127-etag-is-a-revision.md). A plant stored before revisions existed has none,
 * and counts as `unrevised` until its first replace gives it one, so no migration is needed.
 */
export type Revision = string & { readonly [revisionBrand]: true };

/** The revision of a plant written before revisions existed; never drawn by `newRevision`. */
export const unrevised = '0' as Revision;

/**
 * 128 random bits, base64url: no two writes of any plant share one. From `node:crypto`, which the
 * token verifier has loaded already: the global `crypto` would load WebCrypto on a cold request.
 */
export function newRevision(): Revision {
  return randomBytes(16).toString('base64url') as Revision;
}

/** A revision this store could have written: `unrevised`, or 22 base64url characters. */
export function asRevision(text: string): Revision | undefined {
  return text === unrevised || /^[A-Za-z0-9_-]{22}$/.test(text) ? (text as Revision) : undefined;
}

/** What a replace requires of the stored plant, beside that it exists. */
export type ReplaceCondition =
  /** Any revision: no If-Match, or `If-Match: *`. */
  | { readonly kind: 'any' }
  /** One of these revisions; none at all never matches. */
  | { readonly kind: 'one-of'; readonly revisions: readonly Revision[] };
