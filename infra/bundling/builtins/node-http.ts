/**
 * `node:http` as the bundle sees it (`alias` in `bundling.ts`): the CommonJS module itself, not
 * its ESM facade. An ESM `import ... from 'node:http'` makes Node read every export, and
 * `http.WebSocket`, `CloseEvent` and `MessageEvent` are getters that load undici on every cold
 * start, for names this function never uses (docs/decisions/0003-built-ins-without-esm-facades.md).
 * Only the names some bundled module imports are exported; a new one fails the build instead of
 * going missing.
 */
const http = process.getBuiltinModule('node:http');

export default http;
export const { STATUS_CODES } = http;
