import { randomBytes } from 'node:crypto';

declare const revisionBrand: unique symbol;

/** Fresh on every write (docs/decisions/0127-etag-is-a-revision.md). */
export type Revision = string & { readonly [revisionBrand]: true };

/** A plant written before revisions existed: no migration is needed. */
export const unrevised = '0' as Revision;

/** `node:crypto` is loaded already; the global `crypto` would load WebCrypto on a cold request. */
export function newRevision(): Revision {
  return randomBytes(16).toString('base64url') as Revision;
}

export function asRevision(text: string): Revision | undefined {
  return text === unrevised || /^[A-Za-z0-9_-]{22}$/.test(text) ? (text as Revision) : undefined;
}

export type ReplaceCondition =
  | { readonly kind: 'any' }
  /** None at all never matches. */
  | { readonly kind: 'one-of'; readonly revisions: readonly Revision[] };
