import { createRequire } from 'node:module';
import dynaliteDb from 'dynalite/db/index.js';

const require = createRequire(import.meta.url);
let patched = false;

/**
 * Where dynalite differs from DynamoDB: DynamoDB answers a write whose condition failed with the
 * item as it was, as `Item`, when the write asks for `ReturnValuesOnConditionCheckFailure: ALL_OLD`;
 * dynalite leaves it out. dynalite checks a write's condition with its store module's
 * `checkConditional(request, existingItem)`, under the item's lock, against the item the write
 * would replace: its error is given that item. dynalite drops a parameter its validation does not
 * name, so the writes' validations name this one. Once per process: its dynalites share the module.
 */
export function returnOldItemOnConditionFailure(): void {
  if (patched) return;
  patched = true;
  for (const action of ['putItem', 'updateItem', 'deleteItem']) {
    require(`dynalite/validations/${action}.js`).types.ReturnValuesOnConditionCheckFailure = {
      type: 'String',
      enum: ['ALL_OLD', 'NONE'],
    };
  }
  const check = dynaliteDb.checkConditional;
  dynaliteDb.checkConditional = (request, existingItem) => {
    const error = check(request, existingItem);
    if (error?.body && existingItem && request.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') {
      error.body.Item = existingItem;
    }
    return error;
  };
}
