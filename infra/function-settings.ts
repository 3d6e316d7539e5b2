/**
 * Every operation's function size, read by the CDK construct and by the local server, which runs
 * the handlers with the same limits. Plain numbers, so `npm start` loads no CDK code.
 */
export const functionSettings = {
  /**
   * CPU scales with memory on Lambda, and a cold start and each request are mostly CPU: 1024 MB
   * makes both shorter than 512 MB does, for a compute bill that is small either way
   * (docs/decisions/0008-memory-1024-mb.md).
   */
  memoryMb: 1024,
  /**
   * Far above a healthy request (one or two DynamoDB calls) and above a handler's own worst case:
   * every attempt of two DynamoDB calls running into its time limit, with backoff between them,
   * and a JWKS fetch running into its own (functions/connections/dynamodb-client.ts,
   * functions/auth/token-verifier.ts).
   */
  timeoutSeconds: 10,
} as const;
