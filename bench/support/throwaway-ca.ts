import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type ThrowawayCa = {
  /** For `NODE_EXTRA_CA_CERTS`. */
  readonly caFile: string;
  readonly caPem: string;
  readonly serverKey: string;
  readonly serverCertChain: string;
  readonly dir: string;
};

/** Root -> intermediate -> leaf for loopback, shaped like AWS's chains so a handshake verifies as much. */
export async function createThrowawayCa(): Promise<ThrowawayCa> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'plant-store-ca-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (args: string, ...more: string[]) =>
    run('openssl', [...args.split(' '), ...more], { cwd: dir });
  const ca = 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n';
  await writeFile(file('ca.ext'), ca);
  await writeFile(
    file('leaf.ext'),
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n' +
      'extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n',
  );
  await openssl(
    'req -x509 -newkey rsa:2048 -nodes -sha256 -days 2 -keyout root.key -out root.pem -subj',
    '/CN=Plant Store throwaway root CA',
    ...['-addext', 'basicConstraints=critical,CA:TRUE'],
    ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  );
  const issue = async (name: string, subject: string, issuer: string, extensions: string) => {
    await openssl(
      `req -new -newkey rsa:2048 -nodes -keyout ${name}.key -out ${name}.csr -subj`,
      subject,
    );
    await openssl(
      `x509 -req -sha256 -days 2 -in ${name}.csr -CA ${issuer}.pem -CAkey ${issuer}.key -set_serial ${Date.now()} -extfile ${extensions} -out ${name}.pem`,
    );
  };
  await issue('intermediate', '/CN=Plant Store throwaway intermediate CA', 'root', 'ca.ext');
  await issue('server', '/CN=localhost', 'intermediate', 'leaf.ext');

  const [caPem = '', serverKey = '', leaf, intermediate] = await Promise.all(
    ['root.pem', 'server.key', 'server.pem', 'intermediate.pem'].map((name) =>
      readFile(file(name), 'utf8'),
    ),
  );
  return {
    caFile: file('root.pem'),
    caPem,
    serverKey,
    serverCertChain: `${leaf}${intermediate}`,
    dir,
  };
}
