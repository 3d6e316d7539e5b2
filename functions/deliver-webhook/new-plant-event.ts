import { listItemOf } from '../plants/list-item.ts';
import { asPlantId } from '../plants/plant-id.ts';

/** One new plant as the subscriber receives it, ready to sign and send. */
export type NewPlantEvent = {
  /** `webhook-id`: `msg_` and the stream record's id, the same on every attempt. */
  readonly webhookId: string;
  /** The NewPlant as stored, as JSON text: `id` an exact int64 number, `name`, `tag` if any. */
  readonly payload: string;
  /**
   * When DynamoDB wrote the item (epoch ms), which the delivery latency is measured from; absent
   * when the record does not say (AWS marks `ApproximateCreationDateTime` optional).
   */
  readonly createdAt?: number;
};

/** A queue message that is not a table stream record of a new plant; no retry can deliver it. */
export class MalformedRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedRecordError';
  }
}

type AttributeValue = { readonly S?: unknown; readonly N?: unknown };

/**
 * An SQS message body, which is the table's stream record exactly as the pipe passes it on (an
 * INSERT with its `NewImage`), to the event it announces. The id is copied from the record's
 * Number text, never through a JS number, which would round it above 2^53.
 */
export function newPlantEvent(messageBody: string): NewPlantEvent {
  let record: {
    eventID?: unknown;
    eventName?: unknown;
    dynamodb?: {
      NewImage?: Readonly<Record<string, AttributeValue | undefined>>;
      ApproximateCreationDateTime?: unknown;
    };
  };
  try {
    record = JSON.parse(messageBody) as typeof record;
  } catch {
    throw new MalformedRecordError('the message body is not JSON');
  }
  if (record?.eventName !== 'INSERT') {
    throw new MalformedRecordError(`the record is not an INSERT: ${String(record?.eventName)}`);
  }
  const { eventID } = record;
  // It becomes a header value and part of the signed content: printable ASCII, no spaces or dots.
  if (typeof eventID !== 'string' || !/^[\w-]{1,128}$/.test(eventID)) {
    throw new MalformedRecordError('the record has no usable eventID');
  }
  const image = record.dynamodb?.NewImage;
  const id = typeof image?.id?.N === 'string' ? asPlantId(image.id.N) : undefined;
  if (id === undefined) throw new MalformedRecordError('the new image has no int64 id');
  const name = image?.name?.S;
  if (typeof name !== 'string') throw new MalformedRecordError('the new image has no name');
  let tag: string | undefined;
  if (image?.tag !== undefined) {
    if (typeof image.tag.S !== 'string') {
      throw new MalformedRecordError('the new image has a tag that is not a string');
    }
    tag = image.tag.S;
  }
  // Only the latency metric needs it: an event without a usable one is still delivered.
  const created = record.dynamodb?.ApproximateCreationDateTime;
  const dated = typeof created === 'number' && Number.isFinite(created);

  return {
    webhookId: `msg_${eventID}`,
    // The same JSON as a listed plant's: the id as its exact number.
    payload: JSON.stringify(listItemOf({ id, name, tag })),
    ...(dated ? { createdAt: created * 1000 } : {}),
  };
}
