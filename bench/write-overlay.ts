import path from 'node:path';
import { stringify } from 'yaml';
import { APP_IMAGE, appName } from './write-app-base.ts';
import { writeManifest, writeTextFile, type Manifest } from './manifest-file.ts';

const PROXY_IMAGE = 'registry.example.com/mesh/proxy';

/** platform-config (overlay), sidecar-config (sidecar component) and the NetworkPolicy (monitoring). */
export const OVERLAY_OBJECTS = 3;

/**
 * Writes root/overlay over `apps` app bases, and the components it uses under root/components.
 * Returns the overlay directory. The overlay patches app-0001, so `apps` must be at least 2.
 */
export function writeOverlay(root: string, apps: number): string {
  const components = {
    sidecar: sidecarComponent(),
    monitoring: monitoringComponent(path.join(root, 'components', 'monitoring')),
    'platform-config': platformConfigComponent(),
  };
  for (const [name, kustomization] of Object.entries(components)) {
    writeManifest(path.join(root, 'components', name), 'kustomization.yaml', kustomization);
  }
  const dir = path.join(root, 'overlay');
  writeOverlayPatches(dir);
  writeManifest(dir, 'kustomization.yaml', {
    ...overlayTransformers(),
    resources: Array.from({ length: apps }, (_, index) => `../apps/${appName(index)}`),
    components: Object.keys(components).map((name) => `../components/${name}`),
    configMapGenerator: [{ name: 'platform-config', literals: ['CLUSTER=bench'] }],
    patches: overlayPatches(),
  });
  return dir;
}

function overlayTransformers(): Manifest {
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: 'bench',
    namePrefix: 'prod-',
    commonLabels: { env: 'production' },
    labels: [{ pairs: { team: 'platform' }, includeTemplates: true }],
    commonAnnotations: { owner: 'platform-team' },
    images: [
      { name: APP_IMAGE, newTag: '2.0.0' },
      { name: PROXY_IMAGE, newName: 'mirror.example.com/mesh/proxy', newTag: '1.3.0' },
    ],
    replicas: [{ name: appName(0), count: 5 }],
  };
}

function writeOverlayPatches(dir: string): void {
  writeManifest(dir, 'app-0001-resources.yaml', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: appName(1) },
    spec: { template: { spec: { containers: [{ name: 'app', resources: { requests: { cpu: '500m' } } }] } } },
  });
  const ops = [{ op: 'add', path: '/spec/ingressClassName', value: 'nginx' }];
  writeTextFile(dir, 'ingress-class.json', `${JSON.stringify(ops, null, 2)}\n`);
}

/** Strategic-merge patches without a target, by kind, by labelSelector and by name regex; JSON 6902 ones. */
function overlayPatches(): Manifest[] {
  const limits = { name: 'app', resources: { limits: { cpu: '1', memory: '256Mi' } } };
  const frontend = { kind: 'Deployment', metadata: { name: 'any' }, apiVersion: 'apps/v1' };
  return [
    { path: 'app-0001-resources.yaml' },
    {
      target: { kind: 'Deployment', labelSelector: 'tier=frontend' },
      patch: stringify({ ...frontend, spec: { template: { spec: { containers: [limits] } } } }),
    },
    {
      target: { kind: 'HorizontalPodAutoscaler' },
      patch: stringify({
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'any' },
        spec: { maxReplicas: 10 },
      }),
    },
    {
      target: { kind: 'Service', name: 'app-00.0' },
      patch: stringify([{ op: 'add', path: '/spec/sessionAffinity', value: 'ClientIP' }]),
    },
    { target: { group: 'networking.k8s.io', kind: 'Ingress' }, path: 'ingress-class.json' },
  ];
}

function component(fields: Manifest): Manifest {
  return { apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component', ...fields };
}

/** Injects a proxy container into every Deployment through a kind-only target. */
function sidecarComponent(): Manifest {
  const sidecar = {
    name: 'proxy',
    image: `${PROXY_IMAGE}:1.2.0`,
    envFrom: [{ configMapRef: { name: 'sidecar-config' } }],
  };
  const patch = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'any' },
    spec: { template: { spec: { containers: [sidecar] } } },
  };
  return component({
    configMapGenerator: [{ name: 'sidecar-config', literals: ['PROXY_PORT=15001', 'PROXY_MODE=strict'] }],
    patches: [{ target: { kind: 'Deployment' }, patch: stringify(patch) }],
  });
}

/** Adds a NetworkPolicy and annotates backend pods through a labelSelector target. */
function monitoringComponent(dir: string): Manifest {
  writeManifest(dir, 'network-policy.yaml', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'allow-monitoring' },
    spec: { podSelector: { matchLabels: { tier: 'backend' } }, ingress: [{ ports: [{ port: 9090 }] }] },
  });
  const annotations = { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' };
  const patch = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'any' },
    spec: { template: { metadata: { annotations } } },
  };
  return component({
    resources: ['network-policy.yaml'],
    patches: [{ target: { kind: 'Deployment', labelSelector: 'tier=backend' }, patch: stringify(patch) }],
  });
}

/** Merges into ConfigMaps generated before it: the overlay's platform-config and app-0000's config. */
function platformConfigComponent(): Manifest {
  return component({
    configMapGenerator: [
      { name: 'platform-config', behavior: 'merge', literals: ['REGION=eu-west-1', 'TRACING=enabled'] },
      { name: `${appName(0)}-config`, behavior: 'merge', literals: ['LOG_LEVEL=debug'] },
    ],
  });
}
