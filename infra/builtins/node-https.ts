/** `node:https` as the bundle sees it: the built-in itself, not its ESM facade (see `bundling.ts`). */
const https = process.getBuiltinModule('node:https');

export default https;
