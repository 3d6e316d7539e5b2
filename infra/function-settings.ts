/**
 * Every operation's function size, read by the CDK construct and by the local server, which runs
 * the handlers with the same limits. Plain numbers, so `npm start` loads no CDK code.
 */
export const functionSettings = {
  /**
   * CPU scales with memory on Lambda; 1024 MB halves the cold start and the CPU per request of
   * 512 MB for a compute bill that is small either way (docs/decisions/0008-memory-1024-mb.md).
   */
  memoryMb: 1024,
  /**
   * Far above a healthy request (one or two DynamoDB calls of a few ms) and above a handler's own
   * worst case: 3 attempts x 800 ms per DynamoDB call plus backoff, twice, and a 3 s JWKS fetch.
   */
  timeoutSeconds: 10,
} as const;
