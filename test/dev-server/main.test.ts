import { afterAll, beforeAll, describe, it } from 'vitest';
import { refuseWeakSecret } from '../../dev-server/config.ts';
import { tempDataDir } from '../support/local-api-fixture.ts';
import { npmStart, runScript } from '../support/node-script.ts';

// Side by side: each test waits mostly on its process starting.
describe.concurrent('npm start (dev-server/main.ts)', () => {
  let removeDir: () => Promise<void>;
  let dir: string;

  beforeAll(async () => {
    ({ dir, remove: removeDir } = await tempDataDir());
  });

  afterAll(async () => {
    await removeDir?.();
  });

  it('prints the URL, the docs URL and a ready curl line, logs a request and the function output, and stops cleanly on SIGTERM', async ({
    expect,
  }) => {
    const { server, banner, url, create } = await npmStart({ PLANTS_DATA_DIR: dir });

    const logged = server.waitFor(
      /^(?=[\s\S]*POST \/plants 200 \d+ms\n)(?=[\s\S]*"outcome":"created")/,
    );
    const response = await create('{"id":1,"name":"Fern","tag":"indoor"}');
    const stopped = server.waitFor(/Stopped\./);
    server.child.kill('SIGTERM');

    expect(banner).toContain(`curl -X POST ${url}/plants`);
    expect(banner).toContain(`API docs (try it in the browser) at ${url}/docs`);
    expect(banner).toContain(dir);
    expect(banner).toMatch(/Client id\s+local-client/);
    // Without PLANTS_WEBHOOK_URL there is no webhook to speak of.
    expect(banner).not.toMatch(/Webhook|Dead letters/);
    expect(response.status).toBe(200);
    // Besides the gateway's line, the function's own access log line, as CloudWatch would get it.
    expect(await logged).toMatch(/^\{"timestamp":.*"message":"request".*"status":200/m);
    await stopped;
    expect(await server.exited).toBe(0);
  });

  // Where the webhook secret is a file, webhook/npm-start.test.ts reads the banner; where it is
  // given, too.
  it('keeps a client secret of your own and a webhook secret generated in memory off the screen, and warns when other machines can reach it', async ({
    expect,
  }) => {
    const secret = 'my-own-secret-4f2a9c1e7b3d5a8f6e2c0d4b';
    const { server, banner } = await npmStart({
      HOST: '0.0.0.0',
      PLANTS_DATA_DIR: 'memory',
      PLANTS_CLIENT_SECRET: secret,
      // Nothing is created, so nothing is delivered: no receiver needed.
      PLANTS_WEBHOOK_URL: 'http://127.0.0.1:9/',
    });
    server.child.kill('SIGTERM');

    expect(banner).not.toContain(secret);
    expect(banner).toMatch(/Client secret\s+\(PLANTS_CLIENT_SECRET, not shown\)/);
    expect(banner).toMatch(/Warning: HOST 0\.0\.0\.0 lets other machines reach this API/);
    expect(banner).toMatch(/Signed with\s+a secret generated for this run/);
    expect(banner).toContain('PLANTS_WEBHOOK_SECRET');
    expect(banner).not.toContain('whsec_');
    expect(await server.exited).toBe(0);
  });

  // What it refuses, and why, is config.test.ts's and local-api*.test.ts's: one refusal shows how.
  it('refuses to start with exit code 1 and the reason alone on stderr, no stack trace: here a client secret too short for a HOST other machines can reach', async ({
    expect,
  }) => {
    const why = (() => {
      try {
        refuseWeakSecret('0.0.0.0', false, 'a');
      } catch (error) {
        return (error as Error).message;
      }
    })();
    const server = runScript('dev-server/main.ts', {
      HOST: '0.0.0.0',
      PORT: '0',
      PLANTS_DATA_DIR: 'memory',
      PLANTS_CLIENT_SECRET: 'a',
    });

    const code = await server.exited;

    expect(code).toBe(1);
    expect(why).toContain('randomBytes(32)');
    expect(server.stderr()).toBe(`Could not start the local API: ${why}\n`);
  });
});
