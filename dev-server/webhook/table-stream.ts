import { randomBytes } from 'node:crypto';
import dynaliteDb, {
  type LevelDatabase,
  type LevelOperation,
  type PrewriteHook,
} from 'dynalite/db/index.js';

type DynamoDbItem = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** A stream record as DynamoDB Streams documents it for `NEW_IMAGE`: REMOVE has the keys alone. */
interface StreamRecord {
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

export type StoredRecord = { readonly position: string; readonly record: StreamRecord };

export type TableStream = Awaited<ReturnType<typeof attachTableStream>>;

/** The table's DynamoDB stream, which dynalite lacks (decision 0105), from each item write. */
export async function attachTableStream(
  level: LevelDatabase,
  options: { readonly tableName: string; readonly region: string },
) {
  const { tableName, region } = options;
  await level.open();
  const keysOf = ({ id = {} }: DynamoDbItem): DynamoDbItem => ({ id });
  const itemPrefix = `item-${tableName}~`;
  const recordPrefix = `webhook~stream~${tableName}~`;
  const range = { gte: recordPrefix, lt: `${recordPrefix}\uffff` };
  const stored = new Map<string, string>();
  for await (const [key, item] of level.iterator({ gte: itemPrefix, lt: `${itemPrefix}\uffff` })) {
    stored.set(key, canonicalJson(item));
  }

  // The stream's label is the time it was enabled: with the table, so the ARN stays the same.
  const table = (await level.get(`table~${tableName}`)) as { CreationDateTime: number };
  const label = new Date(table.CreationDateTime * 1000).toISOString().replace(/Z$/, '');
  const arn = `arn:aws:dynamodb:${region}:000000000000:table/${tableName}/stream/${label}`;

  // Past every record kept and the clock, so that sequence numbers grow across restarts.
  let sequence = BigInt(Date.now()) * 1_000_000_000n;
  for await (const [key] of level.iterator({ ...range, reverse: true, limit: 1 })) {
    const last = BigInt(key.slice(recordPrefix.length));
    if (last >= sequence) sequence = last + 1n;
  }

  const isItemWrite = (op: LevelOperation) =>
    op.sublevel === undefined && typeof op.key === 'string' && op.key.startsWith(itemPrefix);

  // dynalite holds the item's lock until commit: no other write of it comes in between.
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
    async read(limit: number): Promise<StoredRecord[]> {
      const records: StoredRecord[] = [];
      for await (const [key, value] of level.iterator({ ...range, limit })) {
        records.push({ position: key.slice(recordPrefix.length), record: value as StreamRecord });
      }
      return records;
    },
    trimOperations: (records: readonly StoredRecord[]): LevelOperation[] =>
      records.map(({ position }) => ({ type: 'del', key: `${recordPrefix}${position}` })),
    onRecords: (listener: () => void): void => void listeners.add(listener),
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
