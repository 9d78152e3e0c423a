import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { fakeNodeAnnotation } from './fake-nodes.ts';
import { kwokStages } from './kwok-stages.ts';
import { startReadyServer } from './readiness.ts';
import type { ServerProcess } from './server-process.ts';

export interface KwokStart {
  readonly binary: string;
  readonly kubeconfig: string;
  /** Where its Stages are written (kwok-stages.ts). */
  readonly configFile: string;
  readonly logFile: string;
  readonly detached: boolean;
  readonly timeoutMs: number;
  /** KWOK serves no health endpoint unless asked to: it is ready once its Nodes are. */
  readonly isReady: () => Promise<boolean>;
  /** When given, KWOK also serves the kubelet API of its Nodes (test/cluster/README.md). */
  readonly kubeletServer?: KubeletServer;
}

/** KWOK as every fake Node's kubelet: one HTTPS server on loopback for all of them. */
export interface KubeletServer {
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * Renewed every quarter of it (4 s), five times within the node monitor grace period of 20 s
 * (kube-controller-manager.ts), as a kubelet's 40 s Lease is within the default 50 s. kwok's own
 * default, 0, makes no Leases.
 */
const nodeLeaseDurationSeconds = 16;

/** KWOK's controller, managing only the Nodes annotated as fake (fake-nodes.ts). */
export async function startKwok(start: KwokStart): Promise<ServerProcess> {
  await writeFile(start.configFile, kwokStages.map((stage) => stringify(stage)).join('---\n'));
  return startReadyServer(
    {
      name: 'kwok',
      binary: start.binary,
      args: [
        `--kubeconfig=${start.kubeconfig}`,
        `--config=${start.configFile}`,
        '--manage-all-nodes=false',
        `--manage-nodes-with-annotation-selector=${fakeNodeAnnotation.key}=${fakeNodeAnnotation.value}`,
        // Pod IPs are only recorded, never routed; kept apart from the service range 10.0.0.0/24.
        '--cidr=10.244.0.1/16',
        // A kubelet's heartbeat: without a Lease in kube-node-lease renewed within the node
        // monitor grace period (20 s here), the node lifecycle controller marks the Nodes NotReady and
        // their Pods not Ready. kwok renews each Lease every quarter of its duration, as a kubelet.
        `--node-lease-duration-seconds=${nodeLeaseDurationSeconds}`,
        ...kubeletServerArgs(start.kubeletServer),
      ],
      logFile: start.logFile,
      detached: start.detached,
    },
    start.isReady,
    start.timeoutMs,
  );
}

/**
 * The port-forward endpoint tunnels to what the PortForward objects say (kwok-port-forward.ts);
 * KWOK watches them only with the CRD enabled; the harness installs the CRD before KWOK starts.
 */
function kubeletServerArgs(server: KubeletServer | undefined): string[] {
  if (server === undefined) return [];
  return [
    `--server-address=127.0.0.1:${server.port}`,
    `--tls-cert-file=${server.certFile}`,
    `--tls-private-key-file=${server.keyFile}`,
    '--enable-crds=PortForward',
  ];
}
