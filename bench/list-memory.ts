// The local server's memory under a list-heavy load: `npm start` in a child process on a data
// directory of its own, a hundred plants, then many `GET /plants` pages, with the server's
// resident set size sampled as it goes. Prints one row per sample and the growth.
//
//   node bench/list-memory.ts [--lists 20000] [--port 3987]
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    lists: { type: 'string', default: '20000' },
    port: { type: 'string', default: '3987' },
    memory: { type: 'boolean', default: false },
  },
});
const lists = Number(values.lists);
const base = `http://127.0.0.1:${values.port}`;
const dataDir = values.memory ? 'memory' : await mkdtemp(join(tmpdir(), 'list-memory-'));

const server = spawn(process.execPath, ['dev-server/main.ts'], {
  env: { ...process.env, PORT: values.port, PLANTS_DATA_DIR: dataDir },
  stdio: ['ignore', 'pipe', 'inherit'],
});
server.stdout.resume();

/** The server process's resident set size in MB, from /proc. */
async function rssMb(): Promise<number> {
  const status = await readFile(`/proc/${server.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

try {
  for (;;) {
    try {
      if ((await fetch(`${base}/.well-known/jwks.json`)).ok) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const token = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=local-client&client_secret=local-secret',
  })
    .then((response) => response.json() as Promise<{ access_token: string }>)
    .then((answer) => answer.access_token);
  const auth = { authorization: `Bearer ${token}` };
  for (let id = 1; id <= 100; id += 1) {
    await fetch(`${base}/plants`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: `{"id":${id},"name":"Plant ${id}"}`,
    });
  }
  const start = await rssMb();
  console.log(`lists\trss MB\tload (1 min)`);
  console.log(`0\t${start.toFixed(0)}\t${loadavg()[0]?.toFixed(2)}`);
  let peak = start;
  const every = Math.max(1, Math.floor(lists / 10));
  for (let done = 1; done <= lists; done += 1) {
    const answer = await fetch(`${base}/plants?limit=5`, { headers: auth });
    await answer.arrayBuffer();
    if (done % every === 0) {
      const rss = await rssMb();
      peak = Math.max(peak, rss);
      console.log(`${done}\t${rss.toFixed(0)}\t${loadavg()[0]?.toFixed(2)}`);
    }
  }
  console.log(`growth: ${(peak - start).toFixed(0)} MB over ${lists} lists (peak minus start)`);
} finally {
  server.kill();
  if (!values.memory) await rm(dataDir, { recursive: true, force: true });
}
