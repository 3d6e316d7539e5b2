import { randomBytes } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import type { LevelDatabase } from 'dynalite/db/index.js';
import { batchSize, maxAttempts } from '../../functions/deliver-webhook/delivery-policy.ts';
import { webhookEnvNames } from '../../functions/deliver-webhook/webhook-config.ts';
import { functionSettings } from '../../infra/function-settings.ts';
import { webhookSettings } from '../../infra/webhook-settings.ts';
import { localAwsCredentials } from '../dynamodb.ts';
import { startWorker } from '../function-host.ts';
import { type AwsJsonEndpoint, startAwsJsonEndpoint } from './aws-json-endpoint.ts';
import { startEventSourceMapping } from './event-source-mapping.ts';
import { LocalQueue } from './local-queue.ts';
import { startPipe } from './pipe.ts';
import { secretsManagerService } from './secrets-manager-service.ts';
import { sqsService } from './sqs-service.ts';
import { attachTableStream } from './table-stream.ts';

/** What `npm start` delivers, and the test-only knobs that make the retry schedule quick. */
export interface LocalWebhookOptions {
  /** `PLANTS_WEBHOOK_URL`: every event is POSTed here. */
  readonly url: string;
  /** The signing secret, `whsec_…`. */
  readonly secret: string;
  /** Test-only: see `QueueSettings.timeScale` in local-queue.ts. @default 1 */
  readonly timeScale?: number;
  /** Test-only: the queue's `maxReceiveCount`. @default the deliverer's `maxAttempts` */
  readonly maxReceiveCount?: number;
  /** The deliverer's module; tests name a fixture here. @default functions/deliver-webhook/handler.ts */
  readonly handlerUrl?: string;
}

export interface LocalWebhook {
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** The SQS stand-in's endpoint, for the AWS CLI's `--endpoint-url`. */
  readonly sqsEndpoint: string;
  /** The dead-letter queue's messages' bodies (stream records), oldest first. */
  deadLetters(): string[];
  /** Stream records not yet moved, and messages not yet deleted: both 0 once all is delivered. */
  backlog(): Promise<{ readonly records: number; readonly messages: number }>;
  close(): Promise<void>;
}

const names = {
  queue: 'plant-store-webhooks',
  deadLetterQueue: 'plant-store-webhooks-dlq',
  secret: 'plant-store-webhook-secret',
  function: 'deliver-webhook',
};

/**
 * The AWS path of the new-plant webhook, on this machine (docs/local-development.md#webhooks-locally):
 * the table's stream -> a pipe that keeps INSERTs -> an SQS queue with its DLQ -> the event source
 * mapping -> the unmodified deliverer in a worker per batch running, which reads its secret from
 * Secrets Manager and holds back a failed event with ChangeMessageVisibility, each through a
 * loopback stand-in.
 * Everything is kept in the table's LevelDB, so it survives a restart as the table does.
 */
export async function startLocalWebhook(options: {
  readonly level: LevelDatabase;
  readonly tableName: string;
  readonly webhook: LocalWebhookOptions;
  readonly log: (line: string) => void;
}): Promise<LocalWebhook> {
  const { level, tableName, webhook, log } = options;
  const { region } = localAwsCredentials;
  // The deliverer's own, drawn for this run: the SQS and Secrets Manager stand-ins answer only
  // requests it signed, not any local process that signs with the published local credentials.
  const credentials = {
    accessKeyId: `LOCALDELIVERER${randomBytes(6).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    const stream = await attachTableStream(level, { tableName, region });
    closers.push(async () => stream.detach());

    const queues: LocalQueue[] = [];
    const sqs: AwsJsonEndpoint = await startAwsJsonEndpoint(sqsService(queues), {
      region,
      credentials,
    });
    closers.push(() => sqs.close());
    const deadLetterQueue = await LocalQueue.open(
      level,
      { name: names.deadLetterQueue, region, visibilityTimeoutSeconds: 30 },
      sqs.url,
    );
    const queue = await LocalQueue.open(
      level,
      {
        name: names.queue,
        region,
        visibilityTimeoutSeconds: webhookSettings.queueVisibilityTimeoutSeconds,
        redrive: { maxReceiveCount: webhook.maxReceiveCount ?? maxAttempts, deadLetterQueue },
        ...(webhook.timeScale !== undefined && { timeScale: webhook.timeScale }),
      },
      sqs.url,
    );
    queues.push(queue, deadLetterQueue);

    // Held as the stack's generated secret holds it: the base64 alone, `whsec_` being the
    // subscriber's prefix for it.
    const value = webhook.secret.replace(/^whsec_/, '');
    const secrets = secretsManagerService([{ name: names.secret, value }], region);
    const secretsManager = await startAwsJsonEndpoint(secrets, { region, credentials });
    closers.push(() => secretsManager.close());

    const mapping = await startEventSourceMapping({
      queue,
      startEnvironment: () =>
        startWorker<SQSEvent>(
          {
            handlerUrl:
              webhook.handlerUrl ??
              new URL('../../functions/deliver-webhook/handler.ts', import.meta.url).href,
            functionName: names.function,
            memoryMb: functionSettings.memoryMb,
            timeoutSeconds: webhookSettings.functionTimeoutSeconds,
            credentials,
            env: {
              [webhookEnvNames.url]: webhook.url,
              [webhookEnvNames.secretId]: secrets.arnOf(names.secret),
              [webhookEnvNames.queueUrl]: queue.url,
              [webhookEnvNames.sqsEndpoint]: sqs.url,
              [webhookEnvNames.secretsManagerEndpoint]: secretsManager.url,
            },
          },
          log,
        ),
      settings: { batchSize, maxConcurrency: webhookSettings.mappingMaxConcurrency, region },
      log,
    });
    closers.push(() => mapping.stop());

    const pipe = startPipe({ stream, target: queue, filter: webhookSettings.pipeFilter, log });
    closers.push(() => pipe.stop());

    let closing: Promise<void> | undefined;
    return {
      queueUrl: queue.url,
      deadLetterQueueUrl: deadLetterQueue.url,
      sqsEndpoint: sqs.url,
      deadLetters: () => deadLetterQueue.bodies(),
      backlog: async () => {
        const { visible, inFlight } = queue.counts();
        return { records: (await stream.read(1_000)).length, messages: visible + inFlight };
      },
      close: () => (closing ??= closeAll()),
    };
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }
}
