import type { SQSEvent, SQSRecord } from 'aws-lambda';

export type NewPlantItem = {
  /** The id as DynamoDB holds a Number: its decimal text. */
  readonly id: string;
  readonly name: string;
  readonly tag?: string;
};

let sequence = 100_000_000_000_000_000_000n;

/**
 * A table stream record of a new item, as DynamoDB Streams writes it and the pipe passes it on
 * as the SQS message body (StreamViewType NEW_IMAGE): a fresh `eventID` per call, as DynamoDB gives
 * each record.
 */
export function insertRecord(
  item: NewPlantItem,
  {
    eventID,
    createdAt = Date.now(),
  }: { readonly eventID?: string; readonly createdAt?: number } = {},
): Record<string, unknown> {
  sequence += 1n;
  const image: Record<string, unknown> = { id: { N: item.id }, name: { S: item.name } };
  if (item.tag !== undefined) image.tag = { S: item.tag };
  return {
    eventID: eventID ?? crypto.randomUUID().replaceAll('-', ''),
    eventName: 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(createdAt / 1000),
      Keys: { id: { N: item.id } },
      NewImage: image,
      SequenceNumber: String(sequence),
      SizeBytes: 60,
      StreamViewType: 'NEW_IMAGE',
    },
    eventSourceARN:
      'arn:aws:dynamodb:eu-west-1:123456789012:table/PlantStore-test-PlantsTable/stream/2026-01-01T00:00:00.000',
  };
}

export const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/PlantStore-test-Webhook';

/** One SQS message as the event source mapping hands it to the function. */
export function sqsRecord(
  body: unknown,
  { receiveCount = 1, messageId = crypto.randomUUID() as string } = {},
): SQSRecord {
  const now = String(Date.now());
  return {
    messageId,
    receiptHandle: `AQEB${messageId}/${receiveCount}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: now,
      SenderId: 'AROAEXAMPLE:pipe',
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:PlantStore-test-Webhook',
    awsRegion: 'eu-west-1',
  };
}

export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
