import { mkdir } from 'node:fs/promises';
import type { ApiCredentials } from './api-request.ts';
import { makeCertificates, readPem, type Certificates } from './certificates.ts';
import type { ClusterBinaries, ControllerBinaries } from './cluster-binaries.ts';
import type { ClusterLayout } from './cluster-layout.ts';
import type { EtcdPorts } from './etcd-server.ts';
import { findFreePort } from './free-port.ts';

/** Everything fixed for the cluster's lifetime, restarts included. */
export interface ClusterPlan {
  readonly binaries: ClusterBinaries;
  readonly controllerBinaries: ControllerBinaries | undefined;
  readonly layout: ClusterLayout;
  readonly certificates: Certificates;
  readonly credentials: ApiCredentials;
  readonly etcdPorts: EtcdPorts;
}

export async function planCluster(
  binaries: ClusterBinaries,
  controllerBinaries: ControllerBinaries | undefined,
  layout: ClusterLayout,
): Promise<ClusterPlan> {
  await mkdir(layout.dir, { recursive: true });
  const certificates = await makeCertificates(layout.pki);
  const credentials = {
    server: `https://127.0.0.1:${await findFreePort()}`,
    caPem: await readPem(certificates.caCert),
    clientCertPem: await readPem(certificates.clientCert),
    clientKeyPem: await readPem(certificates.clientKey),
  };
  const etcdPorts = { client: await findFreePort(), peer: await findFreePort() };
  return { binaries, controllerBinaries, layout, certificates, credentials, etcdPorts };
}
