/** `node:timers` as the bundle sees it (Middy imports it): the built-in itself, not its ESM facade. */
export const {
  setTimeout,
  clearTimeout,
  setInterval,
  clearInterval,
  setImmediate,
  clearImmediate,
} = process.getBuiltinModule('node:timers');
