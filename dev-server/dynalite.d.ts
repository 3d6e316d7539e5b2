// dynalite 4 ships no typings; this covers the one call the local stand-in makes.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  /** `path`: the LevelDB directory, in memory when absent. */
  export default function dynalite(options?: { path?: string; createTableMs?: number }): Server;
}
