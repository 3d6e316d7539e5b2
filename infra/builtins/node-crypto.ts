/** `node:crypto` as the bundle sees it: the built-in itself, not its ESM facade (see `bundling.ts`). */
export const { createHash, createHmac } = process.getBuiltinModule('node:crypto');
