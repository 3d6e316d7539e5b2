import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { createLocalJWKSet, createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthError, IssuerUnavailableError } from '../../functions/auth/auth-errors.ts';
import { createLocalKeySet } from '../../functions/auth/json-web-key-set.ts';
import { createRemoteKeySet, type RemoteKeySet } from '../../functions/auth/remote-key-set.ts';
import { verifyJwt } from '../../functions/auth/token-verifier.ts';

/**
 * Our verifier against jose's `jwtVerify` (docs/decisions/0132-hand-written-code-under-differential-tests.md),
 * under one policy: the issuer exactly, our audience as `aud` or (without `aud`) as `client_id`,
 * an access token if it says what it is, at most 24 h to live, 5 s of clock tolerance. jose checks
 * the JOSE layer and the registered claims; the API's own rules are written out again below from
 * their documentation, on the claims jose returns.
 *
 * Every case is a mutation of a valid token and key set. The test fails when ours accepts a token
 * jose refuses, when both accept and read its subject, client or scopes differently, when ours
 * refuses a token jose accepts without a rule of ours that says why, or when a rule of ours does
 * not refuse what it names. `TOKEN_DIFFERENTIAL_RUNS` (and `TOKEN_DIFFERENTIAL_SEED`) make a long
 * run; fast-check prints the seed and path of any failure.
 */
const runs = Number(process.env.TOKEN_DIFFERENTIAL_RUNS ?? 500);
const seed = Number(process.env.TOKEN_DIFFERENTIAL_SEED ?? 115);

const issuer = 'https://issuer.example/pool';
const audiences = ['plant-store-api', 'cli-client'];
const now = 1_750_000_000;
/** The clock both verifiers read, in seconds: `now`, except where the rotation script moves it. */
let clock = now;
const toleranceSeconds = 5;
const maxLifetimeSeconds = 24 * 3600;

/** The rules by which ours refuses what jose accepts: each names where it is decided. */
const stricter = {
  padding: 'one spelling per token: no `=` padding (decision 0115)',
  strayBits:
    'one spelling per token: the unused bits of the last character are zero (decision 0115)',
  whitespace: 'one spelling per token: no character outside the base64url alphabet (decision 0115)',
  bom: 'one spelling per token: JSON text without a byte-order mark (decision 0115)',
  crit: 'no `crit` extension is understood, so none is accepted (decisions 0115, 0116)',
} as const;
type StricterRule = keyof typeof stricter;

// Keys, made once: RSA signing is most of the run time, key generation the rest.
type KeyName = 'rsaA' | 'rsaB' | 'rsa3072' | 'rsa4096' | 'rsa1024' | 'rsaE3' | 'ecA' | 'ecB';
const keyNames: readonly KeyName[] = [
  'rsaA',
  'rsaB',
  'rsa3072',
  'rsa4096',
  'rsa1024',
  'rsaE3',
  'ecA',
  'ecB',
];
const keys = {} as Record<KeyName, { privateKey: KeyObject; publicJwk: Record<string, unknown> }>;
const isEc = (name: KeyName) => name.startsWith('ec');

beforeAll(() => {
  const rsa = (modulusLength: number, publicExponent = 65537) =>
    generateKeyPairSync('rsa', { modulusLength, publicExponent });
  const pairs: Record<KeyName, ReturnType<typeof rsa>> = {
    rsaA: rsa(2048),
    rsaB: rsa(2048),
    rsa3072: rsa(3072),
    rsa4096: rsa(4096),
    rsa1024: rsa(1024),
    rsaE3: rsa(2048, 3),
    ecA: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
    ecB: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  };
  for (const name of keyNames) {
    const { privateKey, publicKey } = pairs[name];
    keys[name] = { privateKey, publicJwk: publicKey.export({ format: 'jwk' }) };
  }
  // Both verifiers read the clock: the same second for both, so the edges are exact.
  vi.spyOn(Date, 'now').mockImplementation(() => clock * 1000);
});
afterAll(() => {
  vi.restoreAllMocks();
});

/**
 * One of several values, the first (the valid one) 19 times in 20: a case changes a valid token in
 * one or two places, so that each change is seen on its own and about a third of the cases are
 * tokens both should accept.
 */
function mostly<T>(valid: T, ...others: T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { weight: 19 * Math.max(others.length, 1), arbitrary: fc.constant(valid) },
    ...others.map((other) => ({ weight: 1, arbitrary: fc.constant(other) })),
  );
}

const absent = Symbol('absent');
type Member = unknown | typeof absent;

/** A JSON number written as its text, so that edges such as `1e400` and `-0` can be written. */
type RawNumber = { readonly raw: string };
const rawNumber = (raw: string): RawNumber => ({ raw });
const isRaw = (value: unknown): value is RawNumber =>
  typeof value === 'object' && value !== null && 'raw' in value;

/** A NumericDate around `base` (seconds from now): its edges, and other spellings of one number. */
const numericDate = (base: number, edges: readonly number[]) =>
  fc.oneof(
    { weight: 40, arbitrary: fc.constant<Member>(now + base) },
    { weight: 4, arbitrary: fc.constantFrom<Member>(...edges.map((edge) => now + edge)) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: -3 * maxLifetimeSeconds, max: 3 * maxLifetimeSeconds })
        .map<Member>((offset) => now + offset),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Member>(
        rawNumber('1e400'),
        rawNumber('-1e400'),
        rawNumber('-0'),
        rawNumber(`${now + base}.0`),
        rawNumber(`${(now + base) / 1e9}e9`),
        rawNumber(`${now + base}.999`),
        1e300,
        absent,
        String(now + base),
        null,
        true,
        [now + base],
      ),
    },
  );

const claimsArbitrary = fc.record({
  iss: mostly<Member>(issuer, `${issuer}/`, issuer.toUpperCase(), absent, 5, [issuer], null),
  sub: mostly<Member>('user-1', absent, 42, '', null),
  client_id: mostly<Member>('cli-client', 'someone-else', absent, ['cli-client'], 7),
  aud: mostly<Member>(
    absent,
    'plant-store-api',
    'billing-api',
    ['billing-api', 'plant-store-api'],
    ['billing-api'],
    [],
    5,
    null,
    'plant-store-api-evil',
  ),
  token_use: mostly<Member>('access', absent, 'id', 5, null, 'ACCESS'),
  scope: mostly<Member>(
    'plants/read plants/write',
    absent,
    '  plants/read   plants/write ',
    '',
    'plants/read\tplants/write',
    ['plants/read'],
    5,
  ),
  scp: mostly<Member>(absent, ['plants/read'], ['plants/read', 5, null], 'plants/read', []),
  iat: numericDate(0, [5, 6, -maxLifetimeSeconds, 5.5, 4.999]),
  nbf: mostly<Member>(absent, now - 100, now + 5, now + 6, now + 5.5, String(now)),
  exp: numericDate(3600, [
    -6,
    -5,
    -4.5,
    -4,
    maxLifetimeSeconds,
    maxLifetimeSeconds + 5,
    maxLifetimeSeconds + 6,
    maxLifetimeSeconds + 5.5,
  ]),
});

const headerArbitrary = fc.record({
  alg: mostly<Member | 'natural' | 'other'>(
    'natural',
    'other',
    'none',
    'HS256',
    'rs256',
    'RS512',
    'PS256',
    '',
    absent,
    5,
  ),
  kid: mostly<Member | 'signer' | 'another'>('signer', 'another', 'unknown', absent, 1, null, ''),
  typ: mostly<Member>('JWT', absent, 'at+jwt', 5),
  extra: mostly<string>(
    '',
    'crit-b64',
    'crit-exp',
    'crit-empty',
    'crit-string',
    'b64-false',
    'jwk',
    'x5u',
    'duplicate-alg-first',
    'duplicate-alg-last',
    'escaped-name',
    'proto',
  ),
});

type KeyEntry = {
  readonly key: KeyName;
  readonly kid: Member | 'own';
  readonly alg: Member | 'natural' | 'other';
  readonly use: Member;
  readonly key_ops: Member;
  readonly ext: Member;
  readonly damage: 'none' | 'private' | 'unreadable' | 'wrong-curve';
};

const keyEntryArbitrary = (key: fc.Arbitrary<KeyName>) =>
  fc.record<KeyEntry>({
    key,
    kid: mostly<Member | 'own'>('own', absent, 'rsaA', 'ecA', 3),
    alg: mostly<Member | 'natural' | 'other'>(absent, 'natural', 'other', 'RS512', 5),
    use: mostly<Member>(absent, 'sig', 'enc', 1),
    key_ops: mostly<Member>(absent, ['verify'], ['sign'], ['verify', 'verify'], 'verify', []),
    ext: mostly<Member>(absent, true, false, 'yes'),
    damage: mostly<KeyEntry['damage']>('none', 'private', 'unreadable', 'wrong-curve'),
  });

type Spelling = 'canonical' | 'padding' | 'strayBits' | 'whitespace' | 'plusSlash';
const spelling = mostly<Spelling>('canonical', 'padding', 'strayBits', 'whitespace', 'plusSlash');

const caseArbitrary = fc.record({
  signer: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom<KeyName>('rsaA', 'ecA') },
    { weight: 1, arbitrary: fc.constantFrom<KeyName>(...keyNames) },
  ),
  header: headerArbitrary,
  claims: claimsArbitrary,
  signerEntry: keyEntryArbitrary(fc.constant('rsaA')), // its key is replaced by the signer's
  published: mostly<'signer' | 'rotated-out'>('signer', 'rotated-out'),
  others: fc.array(keyEntryArbitrary(fc.constantFrom<KeyName>(...keyNames)), { maxLength: 3 }),
  keySetShape: mostly<'keys' | 'not-an-array' | 'not-objects'>(
    'keys',
    'not-an-array',
    'not-objects',
  ),
  bom: mostly<'none' | 'header' | 'payload'>('none', 'header', 'payload'),
  json: mostly<'compact' | 'spaced'>('compact', 'spaced'),
  spellings: fc.tuple(spelling, spelling, spelling),
  whitespaceAt: fc.nat(),
  signature: mostly<'valid' | 'flipped' | 'truncated' | 'wrong-key' | 'empty' | 'twin' | 'der'>(
    'valid',
    'flipped',
    'truncated',
    'wrong-key',
    'empty',
    'twin',
    'der',
  ),
});
type Case = (typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never) & {
  readonly signerEntry: KeyEntry;
};

const naturalAlg = (key: KeyName) => (isEc(key) ? 'ES256' : 'RS256');
const otherAlg = (key: KeyName) => (isEc(key) ? 'RS256' : 'ES256');

/** A JSON object's text from its members, in order, duplicates and raw numbers kept. */
function objectText(members: readonly [string, Member][], spaced: boolean): string {
  const gap = spaced ? ' ' : '';
  const text = members
    .filter(([, value]) => value !== absent)
    .map(([name, value]) => `${name}:${gap}${valueText(value)}`)
    .join(`,${gap}`);
  return spaced ? `{ ${text} }` : `{${text}}`;
}
const valueText = (value: unknown): string =>
  isRaw(value) ? value.raw : (JSON.stringify(value) ?? 'null');
const name = (text: string) => JSON.stringify(text);

function headerMembers(c: Case): [string, Member][] {
  const { alg, kid, typ, extra } = c.header;
  const algValue =
    alg === 'natural' ? naturalAlg(c.signer) : alg === 'other' ? otherAlg(c.signer) : alg;
  const signerKid = c.signerEntry.kid === 'own' ? c.signer : c.signerEntry.kid;
  const kidValue = kid === 'signer' ? signerKid : kid === 'another' ? anotherKey(c.signer) : kid;
  const members: [string, Member][] = [
    [name('alg'), algValue],
    [name('kid'), kidValue],
    [name('typ'), typ],
  ];
  switch (extra) {
    case 'crit-b64':
      return [...members, [name('b64'), true], [name('crit'), ['b64']]];
    case 'crit-exp':
      return [...members, [name('crit'), ['exp']]];
    case 'crit-empty':
      return [...members, [name('crit'), []]];
    case 'crit-string':
      return [...members, [name('b64'), true], [name('crit'), 'b64']];
    case 'b64-false':
      return [...members, [name('b64'), false]];
    case 'jwk':
      return [...members, [name('jwk'), keys.rsaB.publicJwk]];
    case 'x5u':
      return [...members, [name('x5u'), 'https://attacker.example/cert.pem']];
    case 'duplicate-alg-first':
      return [[name('alg'), 'HS256'], ...members];
    case 'duplicate-alg-last':
      return [...members, [name('alg'), 'none']];
    case 'escaped-name':
      return members.map(([member, value]) => [member === '"alg"' ? '"\\u0061lg"' : member, value]);
    case 'proto':
      return [...members, [name('__proto__'), { alg: 'none' }]];
    default:
      return members;
  }
}

/** The key set the issuer publishes for this case. */
function keySetOf(c: Case): unknown {
  const entries =
    c.published === 'signer' ? [{ ...c.signerEntry, key: c.signer }, ...c.others] : c.others;
  const jwks = entries.map(jwkOf);
  if (c.keySetShape === 'not-an-array') return { keys: jwks[0] ?? 'none' };
  if (c.keySetShape === 'not-objects') return { keys: [...jwks, 'key'] };
  return { keys: jwks };
}

function jwkOf(entry: KeyEntry): Record<string, unknown> {
  const { key, kid, alg, use, key_ops: keyOps, ext, damage } = entry;
  const jwk: Record<string, unknown> = { ...keys[key].publicJwk };
  const members: Record<string, Member> = {
    kid: kid === 'own' ? key : kid,
    alg: alg === 'natural' ? naturalAlg(key) : alg === 'other' ? otherAlg(key) : alg,
    use,
    key_ops: keyOps,
    ext,
  };
  for (const [member, value] of Object.entries(members)) if (value !== absent) jwk[member] = value;
  if (damage === 'private') {
    Object.assign(jwk, keys[key].privateKey.export({ format: 'jwk' }));
  } else if (damage === 'unreadable') {
    if (isEc(key)) jwk.x = 'AAAA';
    else jwk.n = 'AQAB';
  } else if (damage === 'wrong-curve' && isEc(key)) {
    jwk.crv = 'P-384';
  }
  return jwk;
}

const base64url = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The segment spelled as the case says, and the rule of ours it breaks, if any. */
function respelled(
  segment: string,
  how: Spelling,
  at: number,
): { text: string; rule?: StricterRule } {
  const partial = segment.length % 4 !== 0;
  switch (how) {
    case 'padding':
      return partial
        ? { text: segment.padEnd(segment.length + 4 - (segment.length % 4), '='), rule: 'padding' }
        : { text: segment };
    case 'strayBits': {
      if (!partial) return { text: segment };
      const last = base64url.indexOf(segment.at(-1) ?? '');
      return { text: `${segment.slice(0, -1)}${base64url[last | 1]}`, rule: 'strayBits' };
    }
    case 'whitespace': {
      const index = at % (segment.length + 1);
      const space = [' ', '\t', '\n'][at % 3];
      return {
        text: `${segment.slice(0, index)}${space}${segment.slice(index)}`,
        rule: 'whitespace',
      };
    }
    case 'plusSlash':
      return { text: segment.replaceAll('-', '+').replaceAll('_', '/') };
    default:
      return { text: segment };
  }
}

/** The order n of P-256's base point: an ECDSA signature (r, s) has a twin (r, n - s). */
const p256Order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** A key of the same type as `key` that is not it. */
const anotherKey = (key: KeyName): KeyName =>
  isEc(key) ? (key === 'ecB' ? 'ecA' : 'ecB') : key === 'rsaB' ? 'rsaA' : 'rsaB';

function signatureOf(c: Case, input: Buffer): Buffer {
  const signer = c.signature === 'wrong-key' ? anotherKey(c.signer) : c.signer;
  const key = keys[signer];
  const der = c.signature === 'der';
  const signature = isEc(signer)
    ? sign('sha256', input, { key: key.privateKey, dsaEncoding: der ? 'der' : 'ieee-p1363' })
    : sign('sha256', input, key.privateKey);
  switch (c.signature) {
    case 'flipped':
      signature.writeUInt8(signature.readUInt8(signature.length >> 1) ^ 1, signature.length >> 1);
      return signature;
    case 'truncated':
      return signature.subarray(1);
    case 'empty':
      return Buffer.alloc(0);
    case 'twin': {
      if (!isEc(signer)) return signature;
      const s = BigInt(`0x${signature.subarray(32).toString('hex')}`);
      const twin = Buffer.from((p256Order - s).toString(16).padStart(64, '0'), 'hex');
      return Buffer.concat([signature.subarray(0, 32), twin]);
    }
    default:
      return signature;
  }
}

const bom = Buffer.from([0xef, 0xbb, 0xbf]);

/** The token and key set of a case, and the rules of ours it breaks. */
function build(c: Case): { token: string; keySet: unknown; rules: StricterRule[] } {
  const rules: StricterRule[] = [];
  const spaced = c.json === 'spaced';
  let header = Buffer.from(objectText(headerMembers(c), spaced));
  let payload = Buffer.from(
    objectText(
      Object.entries(c.claims).map(([claim, value]) => [name(claim), value]),
      spaced,
    ),
  );
  if (c.bom === 'header') header = Buffer.concat([bom, header]);
  if (c.bom === 'payload') payload = Buffer.concat([bom, payload]);
  if (c.bom !== 'none') rules.push('bom');
  if (c.header.extra === 'crit-b64') rules.push('crit');
  const [headerText, payloadText] = [header, payload].map((bytes, index) => {
    const spelled = respelled(
      bytes.toString('base64url'),
      c.spellings[index] ?? 'canonical',
      c.whitespaceAt,
    );
    if (spelled.rule) rules.push(spelled.rule);
    return spelled.text;
  });
  const signingInput = Buffer.from(`${headerText}.${payloadText}`);
  const signature = respelled(
    signatureOf(c, signingInput).toString('base64url'),
    c.spellings[2] ?? 'canonical',
    c.whitespaceAt,
  );
  if (signature.rule) rules.push(signature.rule);
  return { token: `${headerText}.${payloadText}.${signature.text}`, keySet: keySetOf(c), rules };
}

type Verdict =
  | {
      readonly accepted: true;
      readonly subject?: string;
      readonly clientId?: string;
      readonly scopes: readonly string[];
    }
  | { readonly accepted: false; readonly why: string };

/** Ours, as the function runs it, with the key set already fetched. */
async function oursLocal(token: string, keySet: unknown): Promise<Verdict> {
  let local: ReturnType<typeof createLocalKeySet>;
  try {
    local = createLocalKeySet(keySet);
  } catch (error) {
    return { accepted: false, why: `key set: ${(error as Error).message}` };
  }
  return ours(token, async (alg, kid) => local(alg, kid));
}

/** Ours, as the function runs it. */
async function ours(token: string, keys: RemoteKeySet): Promise<Verdict> {
  try {
    const verified = await verifyJwt(token, keys, { issuer, audiences });
    return { accepted: true, ...verified };
  } catch (error) {
    // A key set that loaded cannot make a token a 503 (red team L1): only the client's token is wrong.
    if (error instanceof IssuerUnavailableError)
      return { accepted: false, why: 'IssuerUnavailable' };
    if (error instanceof AuthError) return { accepted: false, why: error.reason };
    throw error;
  }
}

/** jose's `jwtVerify` and, on the claims it returns, the API's policy as documented. */
async function jose(token: string, keys: JWTVerifyGetKey): Promise<Verdict> {
  const now = clock;
  let payload: Record<string, unknown>;
  try {
    const verified = await jwtVerify(token, keys, {
      issuer,
      algorithms: ['RS256', 'ES256'],
      clockTolerance: toleranceSeconds,
      requiredClaims: ['exp'],
      currentDate: new Date(now * 1000),
    });
    payload = verified.payload;
  } catch (error) {
    return { accepted: false, why: (error as Error).message };
  }
  const refused = (why: string): Verdict => ({ accepted: false, why });
  const { aud, client_id: clientId, token_use: use, iat, exp, scope, scp, sub } = payload;
  if (use !== undefined && use !== 'access') return refused('not an access token');
  const audience =
    aud === undefined
      ? typeof clientId === 'string' && audiences.includes(clientId)
      : typeof aud === 'string'
        ? audiences.includes(aud)
        : Array.isArray(aud) && aud.some((value) => audiences.includes(value));
  if (!audience) return refused('audience');
  if (typeof iat === 'number' && iat - now > toleranceSeconds) return refused('iat ahead');
  const issuedAt = typeof iat === 'number' ? iat : now;
  if (typeof exp !== 'number' || !(exp - issuedAt <= maxLifetimeSeconds + toleranceSeconds)) {
    return refused('lifetime');
  }
  const scopes =
    typeof scope === 'string'
      ? scope.split(/ +/).filter((token) => token.length > 0)
      : Array.isArray(scp)
        ? scp.filter((token): token is string => typeof token === 'string')
        : [];
  return {
    accepted: true,
    subject: typeof sub === 'string' ? sub : undefined,
    clientId: typeof clientId === 'string' ? clientId : undefined,
    scopes,
  };
}

describe('the token verifier against jose', () => {
  it(`agrees on ${runs} generated tokens, or refuses by a rule of its own`, async () => {
    const tally = { bothAccept: 0, bothRefuse: 0, stricter: {} as Record<string, number> };
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async (generated) => {
        const c = generated as Case;
        const { token, keySet, rules } = build(c);
        const [mine, theirs] = await Promise.all([
          oursLocal(token, keySet),
          jose(token, (header, jws) => createLocalJWKSet(keySet as never)(header, jws)),
        ]);
        const keySetLoads = c.keySetShape === 'keys';
        if (mine.accepted) {
          // Accepted by ours: jose accepts it too and reads the same claims, and the token breaks
          // no rule of ours (each rule refuses what it names).
          expect(theirs).toStrictEqual(mine);
          expect(rules).toStrictEqual([]);
          tally.bothAccept += 1;
          return;
        }
        if (keySetLoads) expect(mine.why).not.toBe('IssuerUnavailable');
        if (!theirs.accepted) {
          tally.bothRefuse += 1;
          return;
        }
        // Refused by ours alone: a rule of ours says why.
        expect(rules.map((rule) => stricter[rule])).not.toStrictEqual([]);
        for (const rule of rules) tally.stricter[rule] = (tally.stricter[rule] ?? 0) + 1;
      }),
      { numRuns: runs, seed },
    );
    // The generator reaches every kind of answer: a change that stops it fails here, not silently.
    expect(tally.bothAccept).toBeGreaterThan(runs / 20);
    expect(tally.bothRefuse).toBeGreaterThan(runs / 4);
    expect(Object.keys(tally.stricter).sort()).toStrictEqual(Object.keys(stricter).sort());
  });
});

/** A valid token for the current clock, signed by `key` and naming `kid`. */
function mint(key: KeyName, kid: string): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = encode({ alg: naturalAlg(key), kid, typ: 'JWT' });
  const claims = encode({
    iss: issuer,
    sub: 'user-1',
    client_id: 'cli-client',
    token_use: 'access',
    scope: 'plants/read',
    iat: clock,
    exp: clock + 3600,
  });
  const input = Buffer.from(`${header}.${claims}`);
  const signature = isEc(key)
    ? sign('sha256', input, { key: keys[key].privateKey, dsaEncoding: 'ieee-p1363' })
    : sign('sha256', input, keys[key].privateKey);
  return `${header}.${claims}.${signature.toString('base64url')}`;
}

/**
 * One step of the rotation script: the issuer's state, the clock's move, the tokens sent at once,
 * and, where ours fetches less than jose on purpose, the rule that says so.
 */
type Step = {
  readonly what: string;
  readonly publish?: readonly KeyName[] | 'down';
  readonly advanceSeconds: number;
  readonly tokens: readonly [KeyName, string][];
  readonly fewerFetches?: string;
};

const madeUp = (count: number): [KeyName, string][] =>
  Array.from({ length: count }, (_, index) => ['rsaB', `made-up-${index}`]);

const script: readonly Step[] = [
  { what: 'first token', publish: ['rsaA'], advanceSeconds: 0, tokens: [['rsaA', 'rsaA']] },
  { what: 'cached', advanceSeconds: 1, tokens: [['rsaA', 'rsaA']] },
  {
    what: 'rotated, within the cooldown',
    publish: ['rsaA', 'rsaB'],
    advanceSeconds: 1,
    tokens: [['rsaB', 'rsaB']],
  },
  { what: 'rotated, after the cooldown', advanceSeconds: 30, tokens: [['rsaB', 'rsaB']] },
  {
    what: 'old key withdrawn, still cached',
    publish: ['rsaB'],
    advanceSeconds: 1,
    tokens: [['rsaA', 'rsaA']],
  },
  { what: 'a flood of unknown kids within the cooldown', advanceSeconds: 0, tokens: madeUp(20) },
  { what: 'a flood of unknown kids after it: one fetch', advanceSeconds: 30, tokens: madeUp(20) },
  { what: 'the withdrawn key, refetched', advanceSeconds: 1, tokens: [['rsaA', 'rsaA']] },
  {
    what: 'an EC key added, within the cooldown',
    publish: ['rsaB', 'ecA'],
    advanceSeconds: 1,
    tokens: [
      ['ecA', 'ecA'],
      ['rsaB', 'rsaB'],
    ],
  },
  { what: 'the cache expired', advanceSeconds: 600, tokens: [['ecA', 'ecA']] },
  {
    what: 'the issuer down: an unknown kid after the cooldown',
    publish: 'down',
    advanceSeconds: 31,
    tokens: [['rsaA', 'gone']],
  },
  {
    what: 'the issuer down: more unknown kids, one a second',
    advanceSeconds: 1,
    tokens: [['rsaA', 'gone']],
    fewerFetches:
      'a failed fetch starts the cooldown too (red team I3, docs/decisions/0132-hand-written-code-under-differential-tests.md)',
  },
  {
    what: 'the issuer down: a known kid, still cached',
    advanceSeconds: 1,
    tokens: [['ecA', 'ecA']],
  },
  { what: 'the issuer down and the cache expired', advanceSeconds: 600, tokens: [['ecA', 'ecA']] },
  {
    what: 'the issuer back',
    publish: ['rsaB', 'ecA'],
    advanceSeconds: 1,
    tokens: [['ecA', 'ecA']],
  },
];

describe('the key set against jose, through a rotation', () => {
  let server: Server;
  let published: readonly KeyName[] | 'down' = [];
  const fetches = { ours: 0, jose: 0 };

  beforeAll(async () => {
    server = createServer((request, response) => {
      fetches[request.url === '/ours' ? 'ours' : 'jose'] += 1;
      if (published === 'down') {
        response.writeHead(500).end();
        return;
      }
      const jwks = published.map((key) => ({ ...keys[key].publicJwk, kid: key }));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: jwks }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    clock = now;
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('gives the same answers with the same fetches, but for the rule that fetches less', async () => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ourKeys = createRemoteKeySet(new URL(`${base}/ours`), {
      timeoutMs: 3000,
      cooldownMs: 30_000,
      cacheMaxAgeMs: 600_000,
    });
    const joseKeys = createRemoteJWKSet(new URL(`${base}/jose`), {
      timeoutDuration: 3000,
      cooldownDuration: 30_000,
      cacheMaxAge: 600_000,
    });
    for (const step of script) {
      if (step.publish) published = step.publish;
      clock += step.advanceSeconds;
      const tokens = step.tokens.map(([key, kid]) => mint(key, kid));
      const before = { ...fetches };
      const mine = await Promise.all(tokens.map((token) => ours(token, ourKeys)));
      const theirs = await Promise.all(tokens.map((token) => jose(token, joseKeys)));

      const accepted = (verdicts: Verdict[]) => verdicts.map((verdict) => verdict.accepted);
      expect(accepted(mine), step.what).toStrictEqual(accepted(theirs));
      const fetched = { ours: fetches.ours - before.ours, jose: fetches.jose - before.jose };
      if (step.fewerFetches === undefined) {
        expect(fetched.ours, step.what).toBe(fetched.jose);
      } else {
        expect(fetched, `${step.what}: ${step.fewerFetches}`).toStrictEqual({ ours: 0, jose: 1 });
      }
    }
    expect(fetches).toStrictEqual({ ours: 7, jose: 8 });
  });
});
