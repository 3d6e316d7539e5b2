import { randomBytes } from 'node:crypto';
import dynaliteDb, {
  type LevelDatabase,
  type LevelOperation,
  type PrewriteHook,
} from 'dynalite/db/index.js';

/** An item as DynamoDB JSON: attribute name -> `{ N: "1" }`, `{ S: "Fern" }`, ... */
export type DynamoDbItem = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** A stream record as DynamoDB Streams documents it for `NEW_IMAGE`: REMOVE has the keys alone. */
export interface StreamRecord {
  readonly eventID: string;
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly eventVersion: '1.1';
  readonly eventSource: 'aws:dynamodb';
  readonly awsRegion: string;
  readonly dynamodb: {
    /** Epoch seconds. */
    readonly ApproximateCreationDateTime: number;
    readonly Keys: DynamoDbItem;
    readonly NewImage?: DynamoDbItem;
    readonly SequenceNumber: string;
    readonly SizeBytes: number;
    readonly StreamViewType: 'NEW_IMAGE';
  };
  readonly eventSourceARN: string;
}

/** A record as the stream holds it: `position` orders it and trims it. */
export type StoredRecord = { readonly position: string; readonly record: StreamRecord };

export type TableStream = Awaited<ReturnType<typeof attachTableStream>>;

/**
 * The table's DynamoDB stream, which dynalite lacks (decision 0105): a prewrite hook adds each item
 * write's record to the same atomic batch, so a record exists exactly when its write committed; a
 * write that changes nothing records nothing. To tell INSERT from MODIFY in the synchronous hook,
 * each item's image is kept in memory as canonical JSON.
 */
export async function attachTableStream(
  level: LevelDatabase,
  options: { readonly tableName: string; readonly region: string },
) {
  const { tableName, region } = options;
  await level.open();
  // The local table's one key, as dev-server/dynamodb.ts creates it.
  const keysOf = ({ id = {} }: DynamoDbItem): DynamoDbItem => ({ id });
  const itemPrefix = `item-${tableName}~`;
  const recordPrefix = `webhook~stream~${tableName}~`;
  const range = { gte: recordPrefix, lt: `${recordPrefix}\uffff` };
  const stored = new Map<string, string>();
  for await (const [key, item] of level.iterator({ gte: itemPrefix, lt: `${itemPrefix}\uffff` })) {
    stored.set(key, canonicalJson(item));
  }

  // The stream's label is the time it was enabled: with the table, so the ARN stays the same.
  const { CreationDateTime } = (await level.get(`table~${tableName}`)) as {
    CreationDateTime: number;
  };
  const label = new Date(CreationDateTime * 1000).toISOString().replace(/Z$/, '');
  const arn = `arn:aws:dynamodb:${region}:000000000000:table/${tableName}/stream/${label}`;

  // Past every record kept and past the clock, so that sequence numbers keep growing across
  // restarts after the records were trimmed; 21 to 40 digits, as DynamoDB's.
  let sequence = BigInt(Date.now()) * 1_000_000_000n;
  for await (const [key] of level.iterator({ ...range, reverse: true, limit: 1 })) {
    const last = BigInt(key.slice(recordPrefix.length));
    if (last >= sequence) sequence = last + 1n;
  }

  const isItemWrite = (op: LevelOperation) =>
    op.sublevel === undefined && typeof op.key === 'string' && op.key.startsWith(itemPrefix);

  // dynalite holds the item's lock until the write has committed, so no other write of the same
  // item comes between this hook and the `write` event below.
  const hook: PrewriteHook = (op, batch) => {
    if (!isItemWrite(op)) return;
    const before = stored.get(op.key);
    const image = op.type === 'put' ? (op.value as DynamoDbItem) : undefined;
    if (image === undefined ? before === undefined : before === canonicalJson(image)) return;
    const Keys = keysOf(image ?? JSON.parse(before as string));
    sequence += 1n;
    const record: StreamRecord = {
      eventID: randomBytes(16).toString('hex'),
      eventName: image === undefined ? 'REMOVE' : before === undefined ? 'INSERT' : 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: region,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys,
        ...(image && { NewImage: image }),
        SequenceNumber: sequence.toString(),
        SizeBytes: dynaliteDb.itemSize(Keys) + (image ? dynaliteDb.itemSize(image) : 0),
        StreamViewType: 'NEW_IMAGE',
      },
      eventSourceARN: arn,
    };
    const position = record.dynamodb.SequenceNumber.padStart(40, '0');
    batch.add({ type: 'put', key: `${recordPrefix}${position}`, value: record });
  };

  const listeners = new Set<() => void>();
  // After the commit only: a write that failed left the table and the stream as they were.
  const committed = (operations: LevelOperation[]) => {
    let recorded = false;
    for (const op of operations) {
      if (isItemWrite(op)) {
        if (op.type === 'put') stored.set(op.key, canonicalJson(op.value));
        else stored.delete(op.key);
      } else if (op.type === 'put' && String(op.key).startsWith(recordPrefix)) recorded = true;
    }
    if (recorded) for (const listener of listeners) listener();
  };
  level.hooks.prewrite.add(hook);
  level.on('write', committed);

  return {
    arn,
    /** The oldest records not yet trimmed, in the order their writes committed. */
    async read(limit: number): Promise<StoredRecord[]> {
      const records: StoredRecord[] = [];
      for await (const [key, value] of level.iterator({ ...range, limit })) {
        records.push({ position: key.slice(recordPrefix.length), record: value as StreamRecord });
      }
      return records;
    },
    /** The writes that trim these records, for the reader to commit with what it made of them. */
    trimOperations: (records: readonly StoredRecord[]): LevelOperation[] =>
      records.map(({ position }) => ({ type: 'del', key: `${recordPrefix}${position}` })),
    /** Calls `listener` after each write that added records has committed. */
    onRecords: (listener: () => void): void => void listeners.add(listener),
    /** Stops recording; the records written so far stay for the next attach. */
    detach() {
      level.hooks.prewrite.delete(hook);
      level.off('write', committed);
      listeners.clear();
    },
  };
}

/** JSON with every object's keys sorted: equal for two images DynamoDB holds as equal. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner,
  );
}
