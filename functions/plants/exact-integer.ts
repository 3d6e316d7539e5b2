/** Node 24's JSON.parse gives a reviver the source text; a nested `id` is never taken. */
export function topLevelNumberSource(rawBody: string, key: string): string {
  const sources = new WeakMap<object, string>();
  const root = parseWithSource(rawBody, function (this: object, k, value, context) {
    if (k === key && typeof value === 'number' && context?.source !== undefined) {
      sources.set(this, context.source);
    }
    return value;
  });
  return (typeof root === 'object' && root !== null && sources.get(root)) || '';
}

/** TypeScript's lib predates the source-text-access reviver. */
const parseWithSource = JSON.parse as (
  text: string,
  reviver: (this: object, key: string, value: unknown, context?: { source?: string }) => unknown,
) => unknown;

const jsonNumber = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** `1.0`, `1e2`, `-0` are integers, as in JSON Schema; exponents past int64's are clamped. */

export function exactInteger(literal: string): bigint | undefined {
  const match = jsonNumber.exec(literal);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const digits = (whole + fraction).replace(/^0+(?=\d)/, '');
  const exponent = Number(exponentText) - fraction.length;
  if (/^0+$/.test(digits)) return 0n;
  let value: bigint;
  if (exponent >= 0) {
    value = BigInt(digits) * 10n ** BigInt(Math.min(exponent, 20));
  } else {
    const cut = digits.length + exponent;
    if (!/^0*$/.test(digits.slice(Math.max(cut, 0)))) return undefined;
    value = cut > 0 ? BigInt(digits.slice(0, cut)) : 0n;
  }
  return sign === '-' ? -value : value;
}
