import { createRequire } from 'node:module';
import dynaliteDb from 'dynalite/db/index.js';

const require = createRequire(import.meta.url);

/**
 * What dynalite leaves out: DynamoDB answers a write whose condition failed with the item as it
 * was, when the write asks for it with `ReturnValuesOnConditionCheckFailure: ALL_OLD`; dynalite
 * answers without it. dynalite's actions check a write's condition through its store module's
 * `checkConditional(request, existingItem)`, against the very item the write would replace; this
 * gives the error it returns that item as `Item`, as DynamoDB documents it. Once per process: the
 * module is shared by every dynalite it starts. dynalite drops a parameter its validation does
 * not name, so the writes' validations are given this one, as DynamoDB's API defines it.
 */
export function returnOldItemOnConditionFailure(): void {
  if (patched) return;
  patched = true;
  for (const action of ['putItem', 'updateItem', 'deleteItem']) {
    const validation: { types: Record<string, unknown> } = require(
      `dynalite/validations/${action}.js`,
    );
    validation.types.ReturnValuesOnConditionCheckFailure = {
      type: 'String',
      enum: ['ALL_OLD', 'NONE'],
    };
  }
  const check = dynaliteDb.checkConditional;
  dynaliteDb.checkConditional = (request, existingItem) => {
    const error = check(request, existingItem);
    if (
      error?.body !== undefined &&
      request.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' &&
      existingItem !== undefined &&
      Object.keys(existingItem).length > 0
    ) {
      error.body = { ...error.body, Item: existingItem };
    }
    return error;
  };
}

let patched = false;
