import { randomBytes } from 'node:crypto';
import dynaliteDb, {
  type LevelDatabase,
  type LevelOperation,
  type PrewriteHook,
} from 'dynalite/db/index.js';

/** An item as DynamoDB JSON: attribute name -> `{ N: "1" }`, `{ S: "Fern" }`, ... */
export type DynamoDbItem = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * One record of the table's stream, as DynamoDB Streams documents it for the view type
 * `NEW_IMAGE` (the `StreamRecord` and `Record` types of its API) and as EventBridge Pipes passes
 * it on: `NewImage` on INSERT and MODIFY, the keys alone on REMOVE.
 */
export interface StreamRecord {
  readonly eventID: string;
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly eventVersion: '1.1';
  readonly eventSource: 'aws:dynamodb';
  readonly awsRegion: string;
  readonly dynamodb: {
    /** Epoch seconds, as the stream's API gives it to Pipes and Lambda. */
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
export interface StoredRecord {
  readonly position: string;
  readonly record: StreamRecord;
}

export interface TableStream {
  /** `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>` */
  readonly arn: string;
  /** The oldest records not yet trimmed, in the order their writes committed. */
  read(limit: number): Promise<StoredRecord[]>;
  /** The writes that trim these records, for the reader to commit with what it did with them. */
  trimOperations(records: readonly StoredRecord[]): LevelOperation[];
  /** Calls `listener` after each write that added records has committed; returns the unsubscribe. */
  onRecords(listener: () => void): () => void;
  /** Stops recording; the records written so far stay for the next attach. */
  detach(): void;
}

/**
 * A stand-in for the table's DynamoDB stream, which dynalite does not have
 * (docs/decisions/0105-table-stream-from-dynalites-writes.md). dynalite keeps every table in one
 * LevelDB and writes each item with one `put` or `del` under `item-<table>~`; a prewrite hook on
 * that database adds the stream record to the same atomic batch as the item's write. So a record
 * exists exactly when its item write committed, whichever API wrote it (PutItem, UpdateItem,
 * DeleteItem, BatchWriteItem), and it is as durable as the item: a create that dynalite
 * acknowledged has its record on disk. A failed condition, an idempotent replay, a delete of an
 * absent item and a put that changes nothing write nothing, and so record nothing, as on DynamoDB.
 *
 * Where it differs from DynamoDB Streams: one shard; records are kept until a reader trims them
 * rather than for 24 hours, since nothing reads them while `npm start` is stopped; `SizeBytes`
 * follows DynamoDB's item size rules rather than its undocumented record encoding; a table's
 * deletion is not announced. To tell INSERT from MODIFY and to give REMOVE its keys inside a
 * synchronous hook, it keeps each stored item's keys and its image as canonical JSON in memory.
 */
export async function attachTableStream(
  level: LevelDatabase,
  options: { readonly tableName: string; readonly region: string },
): Promise<TableStream> {
  const { tableName, region } = options;
  await level.open();
  const table = (await level.get(`table~${tableName}`)) as
    | { KeySchema: { AttributeName: string }[] }
    | undefined;
  if (table === undefined) throw new Error(`The table ${tableName} does not exist`);
  const keyNames = table.KeySchema.map(({ AttributeName }) => AttributeName);
  const keysOf = (item: DynamoDbItem): DynamoDbItem =>
    Object.fromEntries(keyNames.map((name) => [name, item[name] ?? {}]));

  const itemPrefix = `item-${tableName}~`;
  const recordPrefix = `webhook~stream~${tableName}~`;
  const labelKey = `webhook~stream-label~${tableName}`;
  type StoredItem = { readonly keys: DynamoDbItem; readonly imageJson: string };
  const storedItem = (image: DynamoDbItem): StoredItem => ({
    keys: keysOf(image),
    imageJson: canonicalJson(image),
  });
  const stored = new Map<string, StoredItem>();
  for await (const [key, item] of level.iterator({ gte: itemPrefix, lt: `${itemPrefix}\uffff` })) {
    stored.set(key, storedItem(item as DynamoDbItem));
  }
  /** What a put's hook worked out, for its commit to keep: each put's item is read once. */
  const pending = new Map<string, StoredItem>();

  // The stream's label is the time it was enabled, kept so that its ARN stays the same.
  let label = (await level.get(labelKey)) as string | undefined;
  if (label === undefined) {
    label = new Date().toISOString().replace(/Z$/, '');
    await level.batch([{ type: 'put', key: labelKey, value: label }]);
  }
  const arn = `arn:aws:dynamodb:${region}:000000000000:table/${tableName}/stream/${label}`;

  // Sequence numbers only grow: past every record kept, and past the clock, so that they keep
  // growing across restarts after the records were trimmed; 21 to 40 digits, as DynamoDB's.
  let sequence = BigInt(Date.now()) * 1_000_000_000n;
  for await (const [key] of level.iterator({
    gte: recordPrefix,
    lt: `${recordPrefix}\uffff`,
    reverse: true,
    limit: 1,
  })) {
    const last = BigInt(key.slice(recordPrefix.length));
    if (last >= sequence) sequence = last + 1n;
  }

  const record = (
    eventName: StreamRecord['eventName'],
    Keys: DynamoDbItem,
    NewImage?: DynamoDbItem,
  ): StreamRecord => {
    sequence += 1n;
    return {
      eventID: randomBytes(16).toString('hex'),
      eventName,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: region,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys,
        ...(NewImage && { NewImage }),
        SequenceNumber: sequence.toString(),
        SizeBytes: dynaliteDb.itemSize(Keys) + (NewImage ? dynaliteDb.itemSize(NewImage) : 0),
        StreamViewType: 'NEW_IMAGE',
      },
      eventSourceARN: arn,
    };
  };

  const isItemWrite = (op: LevelOperation) =>
    op.sublevel === undefined && typeof op.key === 'string' && op.key.startsWith(itemPrefix);

  // Runs as the write is submitted; dynalite holds the item's lock until the write has committed,
  // so no other write of the same item comes between this and the `write` event below.
  const hook: PrewriteHook = (op, batch) => {
    if (!isItemWrite(op)) return;
    const before = stored.get(op.key);
    let added: StreamRecord;
    if (op.type === 'put') {
      const image = op.value as DynamoDbItem;
      const after = storedItem(image);
      pending.set(op.key, after);
      if (before?.imageJson === after.imageJson) return;
      added = record(before === undefined ? 'INSERT' : 'MODIFY', after.keys, image);
    } else {
      if (before === undefined) return;
      added = record('REMOVE', before.keys);
    }
    const position = added.dynamodb.SequenceNumber.padStart(40, '0');
    batch.add({ type: 'put', key: `${recordPrefix}${position}`, value: added });
  };

  const listeners = new Set<() => void>();
  // After the commit, and only then: a write that failed left the table and the stream as they were.
  const committed = (operations: LevelOperation[]) => {
    let recorded = false;
    for (const op of operations) {
      if (isItemWrite(op)) {
        if (op.type === 'put') {
          stored.set(op.key, pending.get(op.key) ?? storedItem(op.value as DynamoDbItem));
        } else stored.delete(op.key);
        pending.delete(op.key);
      } else if (op.type === 'put' && String(op.key).startsWith(recordPrefix)) recorded = true;
    }
    if (recorded) for (const listener of listeners) listener();
  };
  level.hooks.prewrite.add(hook);
  level.on('write', committed);

  return {
    arn,
    async read(limit) {
      const records: StoredRecord[] = [];
      for await (const [key, value] of level.iterator({
        gte: recordPrefix,
        lt: `${recordPrefix}\uffff`,
        limit,
      })) {
        records.push({ position: key.slice(recordPrefix.length), record: value as StreamRecord });
      }
      return records;
    },
    trimOperations: (records) =>
      records.map(({ position }) => ({ type: 'del', key: `${recordPrefix}${position}` })),
    onRecords(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
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
