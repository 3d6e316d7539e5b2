import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A server certificate chain for loopback, issued by a root CA made for one test or bench run. */
export type ThrowawayCa = {
  /** The root certificate's PEM file: hand it to a client as `NODE_EXTRA_CA_CERTS`. */
  readonly caFile: string;
  readonly caPem: string;
  /** The server's key and its chain (leaf, then intermediate), for `tls.createServer`. */
  readonly serverKey: string;
  readonly serverCertChain: string;
  /** The folder holding every file above. */
  readonly dir: string;
};

/**
 * Root -> intermediate -> leaf for loopback only (localhost, 127.0.0.1, ::1), RSA 2048 and SHA-256
 * like the chains DynamoDB and Cognito present (Amazon Root CA 1 -> Amazon RSA 2048 Mxx -> the
 * endpoint), so a client verifies as many signatures during the handshake as it does on AWS. Made
 * with `openssl`; valid for two days.
 */
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
    'req -x509 -newkey rsa:2048 -nodes -sha256 -days 2 -keyout root.key -out root.pem',
    ...[
      '-subj',
      '/CN=Plant Store throwaway root CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
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
