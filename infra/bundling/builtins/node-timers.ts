/** `node:timers` as the bundle sees it (Middy imports it): the built-in itself, not its ESM facade. */
export const { setTimeout } = process.getBuiltinModule('node:timers');
