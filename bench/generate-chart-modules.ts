import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { moduleValuesKey } from '../src/core/module-name.ts';
import { appName, isDisabled, teamOf, type GeneratedModulesTree } from './generate-modules.ts';
import { writeManifest, writeTextFile, type Manifest } from './manifest-file.ts';

/**
 * A modules tree of addon-operator chart modules only (docs/modules.md "Chart modules"), the shape
 * every addon-operator user has: each module a Helm chart with its own Chart.yaml, values.yaml
 * (the module's section) and templates that read `.Values.<module>` and `.Values.global`, through
 * a named template in _helpers.tpl. Enabled and disabled as generate-modules.ts's app modules are,
 * so the two kinds of tree have the same modules and releases; the ConfigMap edit of
 * bench/operator-bench.ts (`<module>: replicas: 7`) changes the Deployment.
 */
const GLOBAL_VALUES = {
  registry: 'registry.example.com/platform',
  domain: 'apps.example.com',
  clusterName: 'bench-cluster',
};

/** Writes `modules` chart modules under os.tmpdir(). */
export function generateChartModulesTree(modules: number): GeneratedModulesTree {
  const root = mkdtempSync(path.join(os.tmpdir(), 'kaddon-chart-bench-'));
  const modulesDir = path.join(root, 'modules');
  const width = String(modules).length + 1;
  const values: Manifest = { global: GLOBAL_VALUES };
  const generated = Array.from({ length: modules }, (_, index) => {
    const name = appName(index);
    values[`${moduleValuesKey(name)}Enabled`] = !isDisabled(index);
    writeChartModule(path.join(modulesDir, `${String(index + 1).padStart(width, '0')}-${name}`), index);
    return { name, enabled: !isDisabled(index), objects: isDisabled(index) ? 0 : 3 };
  });
  writeManifest(modulesDir, 'values.yaml', values);
  return { root, modulesDir, modules: generated };
}

function writeChartModule(dir: string, index: number): void {
  const name = appName(index);
  const key = moduleValuesKey(name);
  writeManifest(dir, 'Chart.yaml', { apiVersion: 'v2', name, version: '0.1.0' });
  writeManifest(dir, 'values.yaml', {
    [key]: {
      namespace: teamOf(index),
      replicas: 1 + (index % 3),
      port: 8000 + index,
      version: `1.${String(index % 10)}.0`,
      logLevel: 'info',
    },
  });
  const v = `.Values.${key}`;
  writeTextFile(
    path.join(dir, 'templates'),
    '_helpers.tpl',
    `{{- define "${name}.labels" -}}
app.kubernetes.io/name: ${name}
app.kubernetes.io/part-of: bench-platform
app.kubernetes.io/version: {{ ${v}.version | quote }}
{{- end -}}
`,
  );
  writeTextFile(
    path.join(dir, 'templates'),
    'deployment.yaml',
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: {{ ${v}.namespace }}
  labels:
    {{- include "${name}.labels" . | nindent 4 }}
spec:
  replicas: {{ ${v}.replicas }}
  selector:
    matchLabels:
      app.kubernetes.io/name: ${name}
  template:
    metadata:
      labels:
        {{- include "${name}.labels" . | nindent 8 }}
    spec:
      containers:
      - name: app
        image: {{ .Values.global.registry }}/${name}:{{ ${v}.version }}
        args: ["--listen=:{{ ${v}.port }}", "--cluster={{ .Values.global.clusterName }}"]
        ports:
        - name: http
          containerPort: {{ ${v}.port }}
        envFrom:
        - configMapRef:
            name: ${name}-config
`,
  );
  writeTextFile(
    path.join(dir, 'templates'),
    'service.yaml',
    `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: {{ ${v}.namespace }}
  labels:
    {{- include "${name}.labels" . | nindent 4 }}
spec:
  selector:
    app.kubernetes.io/name: ${name}
  ports:
  - name: http
    port: {{ ${v}.port }}
    targetPort: http
`,
  );
  writeTextFile(
    path.join(dir, 'templates'),
    'configmap.yaml',
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-config
  namespace: {{ ${v}.namespace }}
data:
  LOG_LEVEL: {{ ${v}.logLevel | quote }}
  PUBLIC_URL: {{ printf "https://%s.%s" "${name}" .Values.global.domain | quote }}
`,
  );
}
