// The built-in itself, not its ESM facade (docs/decisions/0003-built-ins-without-esm-facades.md).
const { createPublicKey, verify } = process.getBuiltinModule('node:crypto');

export type Jwk = { readonly kid?: string; readonly kty?: string };
export type Claims = { readonly scope?: unknown };

const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString());

/** The claims of a JWT (its three parts) an RS256 key of the set signed for here, else undefined. */
export function verifiedClaims(
  parts: readonly string[],
  jwks: readonly Jwk[],
  expected: { readonly issuer: string; readonly audiences: readonly string[] },
): Claims | undefined {
  const [head = '', payload = '', signature = ''] = parts;
  try {
    const { alg, kid } = json(head);
    const jwk = jwks.find((key) => key.kid === kid && key.kty === 'RSA');
    if (alg !== 'RS256' || !jwk) return undefined;
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    const signed = Buffer.from(`${head}.${payload}`);
    if (!verify('sha256', signed, key, Buffer.from(signature, 'base64url'))) return undefined;
    const claims = json(payload);
    const now = Date.now() / 1000;
    const audience: unknown[] = [claims.aud ?? claims.client_id].flat();
    const meant = audience.some((name) => expected.audiences.includes(String(name)));
    return claims.iss === expected.issuer && claims.exp > now && !(claims.nbf > now) && meant
      ? claims
      : undefined;
  } catch {
    return undefined;
  }
}
