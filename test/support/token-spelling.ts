/** Other spellings of a signed compact JWS, which decode to the same bytes (RFC 4648 section 3.5). */

const base64url = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The token with one of its three segments (0 header, 1 payload, 2 signature) changed. */
export const respell = (token: string, index: number, change: (segment: string) => string) =>
  token
    .split('.')
    .map((segment, n) => (n === index ? change(segment) : segment))
    .join('.');

/** The last character with its lowest unused bit set: the segment still decodes to the same bytes. */
export function withStrayBit(segment: string): string {
  if (segment.length % 4 === 0) throw new Error('a segment of whole quanta has no unused bits');
  const last = base64url.indexOf(segment.at(-1) ?? '');
  return `${segment.slice(0, -1)}${base64url[last | 1]}`;
}
