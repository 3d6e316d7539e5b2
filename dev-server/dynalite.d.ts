// dynalite 4 ships no typings; this covers the calls the local stand-ins make.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  export default function dynalite(options?: { path?: string; createTableMs?: number }): Server;
}

declare module 'dynalite/db/index.js' {
  export interface LevelOperation {
    readonly type: 'put' | 'del';
    readonly key: string;
    readonly value?: unknown;
    readonly sublevel?: unknown;
  }

  type KeyRange = { gte?: string; lt?: string; limit?: number; reverse?: boolean };
  export interface LevelDatabase {
    readonly hooks: {
      /** Synchronous; what `batch.add` adds commits in the same batch as `op`. */
      readonly prewrite: { add(fn: PrewriteHook): void; delete(fn: PrewriteHook): void };
    };
    open(): Promise<void>;
    batch(operations: LevelOperation[]): Promise<void>;
    get(key: string): Promise<unknown>;
    keys(): { close(): Promise<void> };
    iterator(options: KeyRange): AsyncIterableIterator<[string, unknown]>;
    /** After a write has committed, with the operations it committed (hooks' additions included). */
    on(event: 'write', listener: (operations: LevelOperation[]) => void): void;
    off(event: 'write', listener: (operations: LevelOperation[]) => void): void;
  }

  export type PrewriteHook = (
    op: LevelOperation,
    batch: { add(op: LevelOperation): unknown },
  ) => void;

  const dynaliteDb: {
    create(options: object): { readonly db: LevelDatabase };
    /** A write's condition against the item it would replace: undefined or null when it holds. */
    checkConditional(
      request: { readonly ReturnValuesOnConditionCheckFailure?: string },
      existingItem: Record<string, unknown> | undefined,
    ): { statusCode?: number; body?: Record<string, unknown> } | null | undefined;
    itemSize(item: object): number;
  };
  export default dynaliteDb;
}
