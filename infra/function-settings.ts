/**
 * The create-plant function's size, read by the CDK construct and by the local server, which
 * runs the handler with the same limits. Plain numbers, so `npm start` loads no CDK code.
 */
export const createPlantFunctionSettings = {
  /**
   * CPU scales with memory on Lambda; at 1024 MB (about 0.58 vCPU) a request costs ~1 ms of CPU
   * and the cold start ~60 ms, half of what 512 MB gives, for under $0.10 per million requests of
   * compute either way (`npm run bench`, README "Performance").
   */
  memoryMb: 1024,
  /**
   * Far above a healthy request (two DynamoDB calls of a few ms) and above the handler's own
   * worst case: 3 attempts x 800 ms per DynamoDB call plus backoff, twice, and a 3 s JWKS fetch.
   */
  timeoutSeconds: 10,
} as const;
