import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  makeHandler,
  type WebhookRequest,
} from '../../../functions/deliver-webhook/deliver-webhook.ts';
import { signingKeyOf } from '../../../functions/deliver-webhook/signature.ts';
import {
  previousSecretOverlapMs,
  readSigningSecrets,
  refreshingSigningKeys,
  type SigningSecrets,
  signingKeyTtlMs,
} from '../../../functions/deliver-webhook/signing-keys.ts';
import { insertRecord, sqsEvent, sqsRecord } from '../../support/webhook-events.ts';
import { secretsManagerService } from '../../support/webhook-secrets-manager.ts';

/**
 * A rotation as an operator runs it: `put-secret-value` on a Secrets Manager fake, which labels
 * versions as AWS does, while a warm deliverer keeps signing. The keys' clock (and
 * the versions' creation dates) are a test clock; the attempts' timestamps are real, so that
 * `standardwebhooks` verifies them as a subscriber would.
 */

const minute = 60_000;
/** Base64 of 36 bytes: the form the stack's generated secret has. */
const newSecret = () => randomBytes(36).toString('base64');

function rotationRig() {
  let clock = Date.parse('2026-03-01T09:00:00Z');
  const now = () => clock;
  const first = newSecret();
  const service = secretsManagerService([{ name: 'hook', value: first }], 'eu-west-1', { now });
  const call = (action: string, input: Record<string, unknown>) =>
    service.actions[action]?.(input) as Promise<Record<string, unknown>>;
  let failing = false;
  let reads = 0;
  const kept: unknown[] = [];
  const signingKeys = refreshingSigningKeys(
    () =>
      readSigningSecrets(
        (stage) => {
          reads++;
          if (failing) return Promise.reject(new Error('Secrets Manager unavailable'));
          return call('GetSecretValue', { SecretId: 'hook', VersionStage: stage });
        },
        { now },
      ),
    { now, onKeptAfterFailure: (error) => kept.push(error) },
  );
  const sent: WebhookRequest[] = [];
  const deliver = makeHandler({
    send: async (request) => {
      sent.push(request);
      return 200;
    },
    holdBack: async () => {},
    signingKeys,
    log: () => {},
  });
  return {
    first,
    advance: (ms: number) => {
      clock += ms;
    },
    rotate: async () => {
      const secret = newSecret();
      await call('PutSecretValue', { SecretId: 'hook', SecretString: secret });
      return secret;
    },
    fail: (value: boolean) => {
      failing = value;
    },
    reads: () => reads,
    kept,
    /** Delivers one event and answers which of `secrets` verify it. */
    async verifiedBy(...secrets: string[]) {
      const record = sqsRecord(insertRecord({ id: '7', name: 'Fern' }));
      const answer = await deliver(sqsEvent(record));
      expect(answer.batchItemFailures).toStrictEqual([]);
      const request = sent.at(-1) as WebhookRequest;
      return secrets.map((secret) => {
        try {
          new Webhook(secret).verify(request.body, { ...request.headers });
          return true;
        } catch (error) {
          if (!(error instanceof WebhookVerificationError)) throw error;
          return false;
        }
      });
    },
    signatures: () => sent.at(-1)?.headers['webhook-signature']?.split(' ') ?? [],
  };
}

describe('a warm deliverer through a rotation', () => {
  it('keeps the key it read until the TTL, then signs with the new secret', async () => {
    const rig = rotationRig();
    expect(await rig.verifiedBy(rig.first)).toStrictEqual([true]);
    rig.advance(10 * minute);
    expect(await rig.verifiedBy(rig.first)).toStrictEqual([true]);
    const rotated = await rig.rotate();

    rig.advance(signingKeyTtlMs - minute);
    const beforeTtl = await rig.verifiedBy(rig.first, rotated);
    rig.advance(minute);
    const afterTtl = await rig.verifiedBy(rig.first, rotated);

    expect(beforeTtl).toStrictEqual([true, false]);
    expect(afterTtl).toStrictEqual([true, true]);
  });

  it('signs with both secrets during the overlap, and with the current one only after it', async () => {
    const rig = rotationRig();
    await rig.verifiedBy(rig.first);
    const rotated = await rig.rotate();
    rig.advance(signingKeyTtlMs);

    const during = await rig.verifiedBy(rig.first, rotated);
    const signaturesDuring = rig.signatures();
    rig.advance(previousSecretOverlapMs - signingKeyTtlMs);
    const after = await rig.verifiedBy(rig.first, rotated);

    expect(during).toStrictEqual([true, true]);
    expect(signaturesDuring).toHaveLength(2);
    expect(signaturesDuring.every((each) => each.startsWith('v1,'))).toBe(true);
    expect(after).toStrictEqual([false, true]);
    expect(rig.signatures()).toHaveLength(1);
  });

  it('drops the previous key at the bound even between reads', async () => {
    const rig = rotationRig();
    await rig.rotate();
    rig.advance(previousSecretOverlapMs - minute);
    await rig.verifiedBy();
    expect(rig.signatures()).toHaveLength(2);
    const reads = rig.reads();

    rig.advance(minute);
    await rig.verifiedBy();

    expect(rig.reads()).toBe(reads);
    expect(rig.signatures()).toHaveLength(1);
  });

  it('keeps signing with the key it has when a re-read fails, and reads again a minute later', async () => {
    const rig = rotationRig();
    await rig.verifiedBy(rig.first);
    const rotated = await rig.rotate();
    rig.fail(true);
    rig.advance(signingKeyTtlMs);

    const whileFailing = await rig.verifiedBy(rig.first, rotated);
    const readsAfterFailure = rig.reads();
    rig.advance(minute / 2);
    await rig.verifiedBy(rig.first);
    const readsWithin = rig.reads();
    rig.fail(false);
    rig.advance(minute / 2);
    const recovered = await rig.verifiedBy(rig.first, rotated);

    expect(whileFailing).toStrictEqual([true, false]);
    expect(rig.kept).toHaveLength(1);
    expect(readsWithin).toBe(readsAfterFailure);
    expect(recovered).toStrictEqual([true, true]);
  });
});

describe('refreshingSigningKeys', () => {
  const secrets: SigningSecrets = { current: signingKeyOf(newSecret()) };

  it('shares one read among concurrent callers, and forgets a failed first read', async () => {
    const answers = [Promise.reject(new Error('unavailable')), Promise.resolve(secrets)];
    answers[0]?.catch(() => {});
    let reads = 0;
    const keys = refreshingSigningKeys(
      () => answers[reads++] ?? Promise.reject(new Error('again')),
    );

    const failed = await Promise.allSettled([keys(), keys()]);
    const [first, second] = await Promise.all([keys(), keys()]);

    expect(failed.map(({ status }) => status)).toStrictEqual(['rejected', 'rejected']);
    expect(reads).toBe(2);
    expect(first).toStrictEqual([secrets.current]);
    expect(second).toStrictEqual(first);
  });
});

describe('readSigningSecrets', () => {
  const created = Date.parse('2026-03-01T09:00:00Z');
  const current = newSecret();
  const answer = (value: string) => ({ SecretString: value, CreatedDate: created / 1000 });

  it('does not ask for the previous version once the current one is older than the overlap', async () => {
    const stages: string[] = [];

    const found = await readSigningSecrets(
      async (stage) => {
        stages.push(stage);
        return answer(current);
      },
      { now: () => created + previousSecretOverlapMs },
    );

    expect(stages).toStrictEqual(['AWSCURRENT']);
    expect(found).toStrictEqual({ current: signingKeyOf(current) });
  });

  it.each([
    [
      'has no previous version',
      Object.assign(new Error('none'), { type: 'ResourceNotFoundException' }),
    ],
    ['holds a previous value that is not a signing secret', answer('not base64!')],
  ])('signs with the current key alone when the secret %s', async (_case, previous) => {
    const found = await readSigningSecrets(
      async (stage) => {
        if (stage === 'AWSCURRENT') return answer(current);
        if (previous instanceof Error) throw previous;
        return previous;
      },
      { now: () => created },
    );

    expect(found).toStrictEqual({ current: signingKeyOf(current) });
  });

  it('fails the read when the previous version cannot be read for another reason', async () => {
    const read = readSigningSecrets(
      async (stage) => {
        if (stage === 'AWSPREVIOUS') throw new Error('throttled');
        return answer(current);
      },
      { now: () => created },
    );

    await expect(read).rejects.toThrow('throttled');
  });
});
