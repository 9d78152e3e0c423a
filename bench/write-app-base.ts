import { writeManifest, writeTextFile, type Manifest } from './manifest-file.ts';

/** The image the overlay's images transformer retags. */
export const APP_IMAGE = 'registry.example.com/team/app';

const hasHpa = (index: number): boolean => index % 2 === 0;
const hasIngress = (index: number): boolean => index % 3 === 0;
const tierOf = (index: number): string => (index % 2 === 0 ? 'frontend' : 'backend');

export const appName = (index: number): string => `app-${String(index).padStart(4, '0')}`;

/** Deployment, Service, ServiceAccount, ConfigMap and Secret, plus an HPA and an Ingress for some apps. */
export function countAppObjects(index: number): number {
  return 5 + Number(hasHpa(index)) + Number(hasIngress(index));
}

/** One app's base kustomization: its resources, a ConfigMap from literals and a file, a Secret. */
export function writeAppBase(dir: string, index: number): void {
  const name = appName(index);
  const resources = ['deployment.yaml', 'service.yaml', 'serviceaccount.yaml'];
  writeManifest(dir, 'deployment.yaml', deployment(index));
  writeManifest(dir, 'service.yaml', service(name));
  writeManifest(dir, 'serviceaccount.yaml', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  if (hasHpa(index)) resources.push('hpa.yaml');
  if (hasHpa(index)) writeManifest(dir, 'hpa.yaml', hpa(name));
  if (hasIngress(index)) resources.push('ingress.yaml');
  if (hasIngress(index)) writeManifest(dir, 'ingress.yaml', ingress(name));
  writeTextFile(dir, 'settings.properties', `app.name=${name}\napp.threads=${String(4 + (index % 8))}\n`);
  writeManifest(dir, 'kustomization.yaml', {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources,
    configMapGenerator: [
      {
        name: `${name}-config`,
        // on, 1.50 and 0755 are strings a YAML 1.1 reader would retype: both tools must quote them.
        literals: ['LOG_LEVEL=info', `APP_NAME=${name}`, 'FEATURE_CACHE=on', 'RATIO=1.50', 'UMASK=0755'],
        files: ['settings.properties'],
      },
    ],
    secretGenerator: [
      { name: `${name}-secret`, literals: [`password=s3cret-${String(index)}`, 'user=admin'] },
    ],
  });
}

function deployment(index: number): Manifest {
  const name = appName(index);
  const labels = { app: name, tier: tierOf(index) };
  const container = {
    name: 'app',
    image: `${APP_IMAGE}:1.0.0`,
    ports: [{ name: 'http', containerPort: 8080 }],
    envFrom: [{ configMapRef: { name: `${name}-config` } }, { secretRef: { name: `${name}-secret` } }],
    volumeMounts: [{ name: 'settings', mountPath: '/etc/app' }],
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: name,
          containers: [container],
          volumes: [{ name: 'settings', configMap: { name: `${name}-config` } }],
        },
      },
    },
  };
}

function service(name: string): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels: { app: name } },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  };
}

function hpa(name: string): Manifest {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 2,
      maxReplicas: 6,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
        },
      ],
    },
  };
}

function ingress(name: string): Manifest {
  const backend = { service: { name, port: { number: 80 } } };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name },
    spec: {
      rules: [{ host: `${name}.example.com`, http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }],
    },
  };
}
