/**
 * Every operation's function size, read by the CDK construct and by the local server, which runs
 * the handlers with the same limits. Plain numbers, so `npm start` loads no CDK code.
 */
export const functionSettings = {
  /** CPU scales with memory: see docs/decisions/0008-memory-1024-mb.md. */
  memoryMb: 1024,
  /**
   * Above a handler's worst case: every attempt of two DynamoDB calls running into its time limit,
   * with backoff, and a JWKS fetch running into its own.
   */
  timeoutSeconds: 10,
} as const;
