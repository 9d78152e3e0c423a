import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runTool } from './run-tool.ts';

/** The PKI of one test cluster: file paths, all PEM. */
export interface Certificates {
  readonly caCert: string;
  readonly caKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly serviceAccountKey: string;
  readonly serviceAccountPublicKey: string;
}

const hint = 'Install openssl (Debian package openssl) or put it on PATH.';

/** A throw-away CA, a serving cert for loopback, an admin client cert and a service-account key pair. */
export async function makeCertificates(dir: string): Promise<Certificates> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => path.join(dir, name);
  const certs: Certificates = {
    caCert: file('ca.crt'),
    caKey: file('ca.key'),
    serverCert: file('apiserver.crt'),
    serverKey: file('apiserver.key'),
    clientCert: file('admin.crt'),
    clientKey: file('admin.key'),
    serviceAccountKey: file('sa.key'),
    serviceAccountPublicKey: file('sa.pub'),
  };
  await makeCa(certs.caCert, certs.caKey);
  const server = ['subjectAltName=IP:127.0.0.1,DNS:localhost', 'extendedKeyUsage=serverAuth'];
  await makeSignedCert(certs, certs.serverCert, certs.serverKey, '/CN=kube-apiserver', server);
  // Group system:masters is bound to cluster-admin without any RBAC object.
  await makeSignedCert(certs, certs.clientCert, certs.clientKey, '/O=system:masters/CN=kaddon-admin', [
    'extendedKeyUsage=clientAuth',
  ]);
  await makeKey(certs.serviceAccountKey);
  await openssl(['pkey', '-in', certs.serviceAccountKey, '-pubout', '-out', certs.serviceAccountPublicKey]);
  return certs;
}

export async function readPem(file: string): Promise<string> {
  return readFile(file, 'utf8');
}

async function makeCa(cert: string, key: string): Promise<void> {
  await makeKey(key);
  const extensions = [
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ];
  await openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    key,
    '-subj',
    '/CN=kaddon-test-ca',
    '-days',
    '7',
    ...extensions,
    '-out',
    cert,
  ]);
}

async function makeSignedCert(
  ca: Certificates,
  cert: string,
  key: string,
  subject: string,
  extensions: string[],
): Promise<void> {
  await makeKey(key);
  const csr = `${cert}.csr`;
  const extfile = `${cert}.ext`;
  await openssl(['req', '-new', '-key', key, '-subj', subject, '-out', csr]);
  await writeFile(
    extfile,
    ['keyUsage=critical,digitalSignature,keyEncipherment', ...extensions].join('\n') + '\n',
  );
  const signing = ['-CA', ca.caCert, '-CAkey', ca.caKey, '-set_serial', randomSerial(), '-days', '7'];
  await openssl(['x509', '-req', '-in', csr, ...signing, '-extfile', extfile, '-out', cert]);
}

/** EC P-256: quick to generate, and accepted by Go for TLS and service-account tokens (ES256). */
async function makeKey(file: string): Promise<void> {
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file]);
}

function randomSerial(): string {
  return String(1 + Math.floor(Math.random() * 2 ** 48));
}

async function openssl(args: string[]): Promise<void> {
  await runTool('openssl', args, { step: "test cluster 'certificates'", hint });
}
