/**
 * The test issuer lives in `fixtures/test-issuer.ts`, shared with bench/. This re-export only
 * keeps `test/functions/auth/remote-key-set.test.ts` (changed in parallel) compiling until its
 * import names the fixture; then this file goes.
 */
export * from '../../fixtures/test-issuer.ts';
