import { createRequire } from 'node:module';
import dynaliteDb from 'dynalite/db/index.js';

const require = createRequire(import.meta.url);
let patched = false;

/** dynalite omits the old `Item` of a failed condition that asks for ALL_OLD; this adds it. */
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
