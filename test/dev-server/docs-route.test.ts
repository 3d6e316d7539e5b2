import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { LocalApi } from '../../dev-server/local-api.ts';
import { startTestApi } from '../support/local-api-fixture.ts';

describe('API docs routes of the local server (GET /docs, /docs/assets/*, /openapi.yaml)', () => {
  let api: LocalApi;

  beforeAll(async () => {
    api = await startTestApi();
  });

  afterAll(async () => {
    await api?.close();
  });

  it('serves the page with a same-origin-only policy and a development token for Authorize', async () => {
    const response = await fetch(`${api.url}/docs`);
    const page = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(page).toContain('<script src="/docs/assets/swagger-ui-bundle.js"></script>');
    expect(page).toMatch(/preauthorizeApiKey\('bearerAuth', "[\w-]+\.[\w-]+\.[\w-]+"\)/);
  });

  it('serves openapi.yaml with its first server pointed at this server', async () => {
    const response = await fetch(`${api.url}/openapi.yaml`);
    const spec = parse(await response.text()) as { servers: { url: string }[]; openapi: string };

    expect(response.status).toBe(200);
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.servers[0]?.url).toBe(api.url);
    expect(spec.servers[1]?.url).toBe('https://{apiId}.execute-api.{region}.amazonaws.com');
  });

  it.each([
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['swagger-ui.css', 'text/css; charset=utf-8'],
  ])('serves the renderer file %s', async (name, contentType) => {
    const response = await fetch(`${api.url}/docs/assets/${name}`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  });

  it.each([
    '/docs/assets/package.json',
    '/docs/assets/index.html',
    '/docs/assets/../../package.json',
    '/docs/assets/%2e%2e%2fpackage.json',
    '/docs/assets/__proto__',
    '/docs/assets/',
    '/docs/index.html',
  ])('answers %s with the HTTP API 404: only named renderer files are served', async (path) => {
    const response = await fetch(`${api.url}${path}`);

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not Found' });
  });

  it('answers POST /docs with 404: the docs are read-only', async () => {
    const response = await fetch(`${api.url}/docs`, { method: 'POST' });

    expect(response.status).toBe(404);
  });
});
