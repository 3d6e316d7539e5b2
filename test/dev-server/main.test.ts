import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { webhookSecretFile } from '../../dev-server/webhook/webhook-secret.ts';
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
    expect(response.status).toBe(200);
    // Besides the gateway's line, the function's own access log line, as CloudWatch would get it.
    expect(await logged).toMatch(/^\{"timestamp":.*"message":"request".*"status":200/m);
    await stopped;
    expect(await server.exited).toBe(0);
  });

  it('keeps a secret of your own off the screen, and warns when other machines can reach it', async ({
    expect,
  }) => {
    const secret = 'my-own-secret-4f2a9c1e7b3d5a8f6e2c0d4b';
    const server = runScript('dev-server/main.ts', {
      HOST: '0.0.0.0',
      PORT: '0',
      PLANTS_DATA_DIR: 'memory',
      PLANTS_CLIENT_SECRET: secret,
    });

    const banner = await server.waitFor(/Ctrl-C/);
    server.child.kill('SIGTERM');

    expect(banner).not.toContain(secret);
    expect(banner).toMatch(/Client secret\s+\(PLANTS_CLIENT_SECRET, not shown\)/);
    expect(banner).toMatch(/Warning: HOST 0\.0\.0\.0 lets other machines reach this API/);
    expect(await server.exited).toBe(0);
  });

  it('says where the webhook secret it generated is, not what it is', async ({
    expect,
    onTestFinished,
  }) => {
    // A directory of its own: two servers cannot share one store.
    const own = await tempDataDir();
    onTestFinished(own.remove);
    const { server, banner } = await npmStart({
      PLANTS_DATA_DIR: own.dir,
      // Nothing is created, so nothing is delivered: no receiver needed.
      PLANTS_WEBHOOK_URL: 'http://127.0.0.1:9/',
    });
    server.child.kill('SIGTERM');

    const file = webhookSecretFile(own.dir);
    const secret = (await readFile(file, 'utf8')).trim();
    expect(secret).toMatch(/^whsec_/);
    expect(banner).not.toContain(secret.slice('whsec_'.length));
    expect(banner).toContain(`Signed with   the secret in ${file}`);
    expect(banner).toContain('npm run webhook:listen reads it');
    expect(await server.exited).toBe(0);
  });

  it('keeps a webhook secret generated for one run in memory off the screen too', async ({
    expect,
  }) => {
    const { server, banner } = await npmStart({
      PLANTS_DATA_DIR: 'memory',
      PLANTS_WEBHOOK_URL: 'http://127.0.0.1:9/',
    });
    server.child.kill('SIGTERM');

    expect(banner).toMatch(/Signed with\s+a secret generated for this run/);
    expect(banner).toContain('PLANTS_WEBHOOK_SECRET');
    expect(banner).not.toContain('whsec_');
    expect(await server.exited).toBe(0);
  });

  it('refuses a HOST other machines can reach while the client secret is the published default', async ({
    expect,
  }) => {
    const server = runScript('dev-server/main.ts', {
      HOST: '0.0.0.0',
      PORT: '0',
      PLANTS_DATA_DIR: 'memory',
    });

    const code = await server.exited;

    expect(code).toBe(1);
    expect(server.stderr()).toMatch(
      /Could not start the local API: HOST 0\.0\.0\.0 .*PLANTS_CLIENT_SECRET/,
    );
  });

  it('refuses a HOST other machines can reach while the client secret is short, and says how to make one', async ({
    expect,
  }) => {
    const server = runScript('dev-server/main.ts', {
      HOST: '0.0.0.0',
      PORT: '0',
      PLANTS_DATA_DIR: 'memory',
      PLANTS_CLIENT_SECRET: 'a',
    });

    const code = await server.exited;

    expect(code).toBe(1);
    expect(server.stderr()).toMatch(/HOST 0\.0\.0\.0 .*shorter than 32 characters/);
    expect(server.stderr()).toContain('randomBytes(32)');
    expect(server.stderr()).not.toMatch(/^\s+at /m);
  });
});
