import { isIPv6 } from 'node:net';

interface BackoffOptions {
  /** Failures an address may have in a row before it must wait. */
  readonly burst: number;
  /** How fast an address earns a try back, in failures forgiven per second. */
  readonly forgivenPerSecond: number;
  /** Addresses remembered at once; past it the one whose last failure is oldest is forgotten. */
  readonly maxAddresses: number;
}

/** Failed client authentications per address (IPv6: per /64), as a leaky bucket. */
export class FailureBackoff {
  readonly #options: BackoffOptions;
  readonly #now: () => number;
  /** Insertion order is the order of last failure, oldest first. */
  readonly #buckets = new Map<string, { level: number; at: number }>();

  constructor(options: BackoffOptions, now: () => number = () => performance.now()) {
    this.#options = options;
    this.#now = now;
  }

  retryAfterSeconds(address: string): number {
    // A try is let in while one more failure would still be within `burst`.
    const excess = this.#level(clientKey(address)) - (this.#options.burst - 1);
    return excess <= 0 ? 0 : Math.ceil(excess / this.#options.forgivenPerSecond);
  }

  failed(address: string): void {
    const key = clientKey(address);
    const level = this.#level(key) + 1;
    this.#buckets.delete(key);
    this.#buckets.set(key, { level, at: this.#now() });
    for (const oldest of this.#buckets.keys()) {
      if (this.#buckets.size <= this.#options.maxAddresses) break;
      this.#buckets.delete(oldest);
    }
  }

  #level(key: string): number {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return 0;
    const leaked = ((this.#now() - bucket.at) / 1000) * this.#options.forgivenPerSecond;
    return Math.max(0, bucket.level - leaked);
  }
}

export function clientKey(address: string): string {
  const bare = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').replace(/%.*$/, '');
  if (!isIPv6(bare)) return bare;
  const [head = '', tail] = bare.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  const groups = [...left, ...zeros, ...right].slice(0, 4);
  return `${groups.map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}
