/**
 * RFC 7515 section 2 and RFC 4648 section 3.5: a compact JWS is three base64url segments with no
 * padding and no character outside the alphabet, whose last character leaves its unused bits
 * zero. Decoders are lenient (jose falls back to `atob`, which reads `=` padding and ignores the
 * unused bits), so without this check one signed token has many spellings. A segment is in its
 * one spelling exactly when decoding and encoding it again gives it back: Node's decoder skips
 * what is not base64url, and its encoder writes no padding and zero unused bits.
 */
export function isCanonicalCompactJws(token: string): boolean {
  const segments = token.split('.');
  return (
    segments.length === 3 &&
    segments.every((segment) => Buffer.from(segment, 'base64url').toString('base64url') === segment)
  );
}
