import { describe, expect, it } from 'vitest';
import { baseUrl, LocalConfigError, loadLocalConfig } from '../../dev-server/config.ts';

describe('loadLocalConfig', () => {
  it('defaults to 127.0.0.1:3000, .data under the working directory and the local client', () => {
    const config = loadLocalConfig({}, '/work/app');

    expect(config).toEqual({
      host: '127.0.0.1',
      port: 3000,
      dataDir: '/work/app/.data',
      client: { id: 'local-client', secret: 'local-secret' },
    });
  });

  it('reads HOST, PORT, PLANTS_DATA_DIR and the client credentials', () => {
    const config = loadLocalConfig(
      {
        HOST: '0.0.0.0',
        PORT: '8080',
        PLANTS_DATA_DIR: '/var/plants',
        PLANTS_CLIENT_ID: 'me',
        PLANTS_CLIENT_SECRET: 's3cret',
      },
      '/work/app',
    );

    expect(config).toEqual({
      host: '0.0.0.0',
      port: 8080,
      dataDir: '/var/plants',
      client: { id: 'me', secret: 's3cret' },
    });
  });

  it('keeps everything in memory when PLANTS_DATA_DIR is "memory"', () => {
    const config = loadLocalConfig({ PLANTS_DATA_DIR: 'memory' });

    expect(config.dataDir).toBeUndefined();
  });

  it.each(['http', '-1', '65536', '3000.5'])('rejects PORT=%s, naming the variable', (port) => {
    const load = () => loadLocalConfig({ PORT: port });

    expect(load).toThrow(LocalConfigError);
    expect(load).toThrow(/^PORT must be/);
  });

  it('rejects a client id with a colon, which HTTP Basic cannot carry', () => {
    const load = () => loadLocalConfig({ PLANTS_CLIENT_ID: 'a:b' });

    expect(load).toThrow(/PLANTS_CLIENT_ID/);
  });
});

describe('baseUrl', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:3000'],
    ['0.0.0.0', 'http://127.0.0.1:3000'],
    ['::1', 'http://[::1]:3000'],
    ['localhost', 'http://localhost:3000'],
  ])('reaches %s at %s', (host, url) => {
    const result = baseUrl(host, 3000);

    expect(result).toBe(url);
  });
});
