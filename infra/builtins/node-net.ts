/** `node:net` as the bundle sees it: the built-in itself, not its ESM facade (see `bundling.ts`). */
export const { connect, isIP } = process.getBuiltinModule('node:net');
