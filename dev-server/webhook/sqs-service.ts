import { type AwsJsonService, AwsServiceError } from './aws-json-endpoint.ts';
import type { LocalQueue } from './local-queue.ts';

/**
 * The SQS JSON protocol (`AmazonSQS.<Action>`, `application/x-amz-json-1.0`) over local queues:
 * ChangeMessageVisibility, which the deliverer calls, and what a developer needs to look at and
 * replay the dead letters with the AWS CLI or SDK (`--endpoint-url`): ReceiveMessage,
 * DeleteMessage, SendMessage, GetQueueAttributes and StartMessageMoveTask. Errors are written as
 * SQS writes them: `__type` qualified by its namespace and `x-amzn-query-error`.
 */
export function sqsService(queues: readonly LocalQueue[]): AwsJsonService {
  const queueOf = (input: Readonly<Record<string, unknown>>): LocalQueue => {
    const url = text(input, 'QueueUrl');
    // SQS goes by the URL's path, /<account>/<name>, whatever host name reached it.
    const path = URL.canParse(url) ? new URL(url).pathname : undefined;
    const queue = queues.find((candidate) => new URL(candidate.url).pathname === path);
    if (queue === undefined) {
      throw new AwsServiceError('QueueDoesNotExist', 'The specified queue does not exist.');
    }
    return queue;
  };
  const byArn = (arn: string) => queues.find((queue) => queue.arn === arn);

  return {
    signingName: 'sqs',
    targetPrefix: 'AmazonSQS',
    jsonVersion: '1.0',
    errorAnswer: (error) => ({
      body: { __type: `com.amazonaws.sqs#${error.type}`, message: error.message },
      headers: {
        'x-amzn-query-error': `${error.type};${error.statusCode < 500 ? 'Sender' : 'Receiver'}`,
      },
    }),
    actions: {
      async ChangeMessageVisibility(input) {
        await queueOf(input).changeVisibility(
          text(input, 'ReceiptHandle'),
          integer(input, 'VisibilityTimeout'),
        );
        return {};
      },
      async DeleteMessage(input) {
        await queueOf(input).delete(text(input, 'ReceiptHandle'));
        return {};
      },
      async ReceiveMessage(input) {
        const queue = queueOf(input);
        const max =
          input.MaxNumberOfMessages === undefined ? 1 : integer(input, 'MaxNumberOfMessages');
        if (max < 1 || max > 10) {
          throw new AwsServiceError(
            'InvalidParameterValue',
            'Value for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10.',
          );
        }
        const visibility =
          input.VisibilityTimeout === undefined ? undefined : integer(input, 'VisibilityTimeout');
        const messages = await queue.receive(max, visibility);
        return {
          Messages: messages.map((message) => ({
            MessageId: message.messageId,
            ReceiptHandle: message.receiptHandle,
            MD5OfBody: message.md5OfBody,
            Body: message.body,
            Attributes: {
              ApproximateReceiveCount: String(message.receiveCount),
              SentTimestamp: String(message.sentTimestamp),
              ApproximateFirstReceiveTimestamp: String(message.firstReceiveTimestamp),
            },
          })),
        };
      },
      async SendMessage(input) {
        const [sent] = await queueOf(input).send([text(input, 'MessageBody')]);
        return { MessageId: sent?.messageId, MD5OfMessageBody: sent?.md5OfBody };
      },
      async GetQueueAttributes(input) {
        const queue = queueOf(input);
        const { visible, inFlight } = queue.counts();
        return {
          Attributes: {
            QueueArn: queue.arn,
            ApproximateNumberOfMessages: String(visible),
            ApproximateNumberOfMessagesNotVisible: String(inFlight),
            VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
            ...(queue.redrive && {
              RedrivePolicy: JSON.stringify({
                deadLetterTargetArn: queue.redrive.deadLetterQueue.arn,
                maxReceiveCount: queue.redrive.maxReceiveCount,
              }),
            }),
          },
        };
      },
      /** The redrive: every message of a dead-letter queue back to its source queue, at once. */
      async StartMessageMoveTask(input) {
        const source = byArn(text(input, 'SourceArn'));
        const destination =
          input.DestinationArn === undefined
            ? queues.find((queue) => queue.redrive?.deadLetterQueue === source)
            : byArn(text(input, 'DestinationArn'));
        if (source === undefined || destination === undefined) {
          throw new AwsServiceError('ResourceNotFoundException', 'The resource does not exist.');
        }
        await source.moveAllTo(destination);
        return { TaskHandle: Buffer.from(`${source.arn} ${Date.now()}`).toString('base64') };
      },
    },
  };
}

function text(input: Readonly<Record<string, unknown>>, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') {
    throw new AwsServiceError(
      'MissingParameter',
      `The request must contain the parameter ${name}.`,
    );
  }
  return value;
}

function integer(input: Readonly<Record<string, unknown>>, name: string): number {
  const value = input[name];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new AwsServiceError('InvalidParameterValue', `Value for parameter ${name} is invalid.`);
  }
  return value;
}
