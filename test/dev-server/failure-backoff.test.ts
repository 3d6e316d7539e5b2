import { describe, expect, it } from 'vitest';
import { clientKey, FailureBackoff } from '../../dev-server/failure-backoff.ts';

/** A backoff on a clock the test moves. */
function backoff(options: Partial<ConstructorParameters<typeof FailureBackoff>[0]> = {}) {
  const clock = { ms: 0 };
  const limiter = new FailureBackoff(
    { burst: 3, forgivenPerSecond: 1, maxAddresses: 100, ...options },
    () => clock.ms,
  );
  return { limiter, clock };
}

describe('FailureBackoff', () => {
  it('lets an address fail `burst` times, then makes it wait until one failure is forgiven', () => {
    const { limiter, clock } = backoff();

    const before = [0, 1, 2].map(() => {
      const wait = limiter.retryAfterSeconds('198.51.100.7');
      limiter.failed('198.51.100.7');
      return wait;
    });
    const blocked = limiter.retryAfterSeconds('198.51.100.7');
    clock.ms += 999;
    const stillBlocked = limiter.retryAfterSeconds('198.51.100.7');
    clock.ms += 1;
    const free = limiter.retryAfterSeconds('198.51.100.7');

    expect(before).toEqual([0, 0, 0]);
    expect(blocked).toBe(1);
    expect(stillBlocked).toBe(1);
    expect(free).toBe(0);
  });

  it('makes an address that keeps failing wait longer, and forgives it with time', () => {
    const { limiter, clock } = backoff();

    for (let i = 0; i < 8; i++) limiter.failed('198.51.100.7');
    const wait = limiter.retryAfterSeconds('198.51.100.7');
    clock.ms += wait * 1000;

    expect(wait).toBe(6);
    expect(limiter.retryAfterSeconds('198.51.100.7')).toBe(0);
  });

  it('counts each address on its own, an IPv6 client by its /64, an IPv4-mapped one as IPv4', () => {
    const { limiter } = backoff();

    for (let i = 0; i < 3; i++) limiter.failed('2001:db8:1:2:aaaa::1');

    expect(limiter.retryAfterSeconds('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(1);
    expect(limiter.retryAfterSeconds('2001:db8:1:3::1')).toBe(0);
    expect(limiter.retryAfterSeconds('198.51.100.7')).toBe(0);
    for (let i = 0; i < 3; i++) limiter.failed('::ffff:198.51.100.8');
    expect(limiter.retryAfterSeconds('198.51.100.8')).toBe(1);
  });

  it('remembers at most maxAddresses, forgetting the one whose last failure is oldest', () => {
    const { limiter } = backoff({ maxAddresses: 2 });
    for (let i = 0; i < 3; i++) limiter.failed('198.51.100.1');
    for (let i = 0; i < 3; i++) limiter.failed('198.51.100.2');

    limiter.failed('198.51.100.1');
    limiter.failed('198.51.100.3');

    expect(limiter.retryAfterSeconds('198.51.100.1')).toBeGreaterThan(0);
    expect(limiter.retryAfterSeconds('198.51.100.2')).toBe(0);
    expect(limiter.retryAfterSeconds('198.51.100.3')).toBe(0);
  });
});

describe('clientKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0DB8:0000:0001:0:0:0:1', '2001:db8:0:1::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ])('keys %s as %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });
});
