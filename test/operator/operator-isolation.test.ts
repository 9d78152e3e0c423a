import assert from 'node:assert/strict';
import { chmod, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject } from '../../src/core/json.ts';
import { sample, scrapeMetrics } from './metrics-scrape.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-isolation';
const MODULES = Array.from({ length: 10 }, (_, index) => `m${String(index + 1).padStart(2, '0')}`);
let env: OperatorEnvironment;
let operator: E2eOperator;
let hangMarker: string;

/**
 * docs/lifecycle.md "Failure isolation", seen from outside: ten modules, `m03` with a beforeHelm
 * hook that fails until `m03.fixed`, `m07` whose `helm upgrade` hangs while a marker file exists
 * (a wrapper around the real helm), with the default KADDON_MODULE_FAILURE_POLICY=isolate.
 */
before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-isolation' });
  hangMarker = path.join(env.tree.root, 'hang-m07');
  const files: Record<string, string> = {
    'modules/values.yaml': MODULES.map((module) => `${module}Enabled: true\n`).join(''),
  };
  for (const [index, module] of MODULES.entries())
    for (const [file, text] of Object.entries(stateModuleFiles(NAMESPACE, module, '  a: "1"\n')))
      files[`modules/${String(10 + index)}-${module}/${file}`] = text;
  files['modules/12-m03/values.yaml'] = 'm03:\n  fixed: false\n';
  files['modules/12-m03/hooks/check.sh'] = `#!/usr/bin/env bash
if [ "$1" = "--config" ]; then echo '{"configVersion":"v1","beforeHelm":10}'; exit 0; fi
if grep -Eq '"fixed"[[:space:]]*:[[:space:]]*true' "$VALUES_PATH"; then exit 0; fi
echo "m03: not fixed yet" >&2
exit 1
`;
  files['helm-wrapper.sh'] = `#!/usr/bin/env bash
if [ "$1" = "upgrade" ] && [ "$3" = "m07" ] && [ -e ${hangMarker} ]; then exec sleep 600; fi
exec "${env.helmPath}" "$@"
`;
  env.tree.write('', files);
  await chmod(path.join(env.tree.root, 'modules/12-m03/hooks/check.sh'), 0o755);
  await chmod(path.join(env.tree.root, 'helm-wrapper.sh'), 0o755);
  await writeFile(hangMarker, '');
  operator = env.startOperator({
    forceKillAfterDelay: 30_000,
    extraEnv: {
      // The wrapper watches the helm binary's upgrades: the helm engine, not the default native one.
      KADDON_DELIVERY: 'helm',
      HELM_BIN_PATH: path.join(env.tree.root, 'helm-wrapper.sh'),
      KADDON_HELM_PATH: '',
      HELM_TIMEOUT: '2s',
      KADDON_CONCURRENT_DELIVERIES: '1',
    },
  });
});
after(() => env.stop());

async function delivered(): Promise<string[]> {
  const list = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps`);
  const names = (Array.isArray(list.items) ? list.items.filter(isJsonObject) : []).map((item) =>
    isJsonObject(item.metadata) && typeof item.metadata.name === 'string' ? item.metadata.name : '',
  );
  return MODULES.filter((module) => names.includes(`${module}-state`));
}

describe('one broken module never holds the others (KADDON_MODULE_FAILURE_POLICY=isolate)', () => {
  it('delivers the other eight while m03 fails and m07 hangs, names the hanging helm, then turns ready', async () => {
    const others = MODULES.filter((module) => module !== 'm03' && module !== 'm07');
    // m07's helm hangs for HELM_TIMEOUT and its grace, each attempt: the metric names it meanwhile.
    // Watched while the others are delivered, as a user polling /metrics would see it.
    let m07Named = false;
    await eventually(operator, 'the other eight delivered and the hanging helm of m07 named', async () => {
      if (!m07Named) {
        const metrics = await scrapeMetrics(env.port);
        m07Named =
          (sample(metrics, 'addon_operator_helm_operation_running_seconds', { module: 'm07' }) ?? -1) >= 0;
      }
      return m07Named && (await delivered()).join() === others.join() ? true : undefined;
    });
    // The hang is ended after HELM_TIMEOUT and its grace; then every module was delivered or failed once.
    await waitReady(operator, env.port, 150_000);
    assert.match(operator.output(), /module m03 failed; retried in \d+ s while the others go on/);
    assert.match(operator.output(), /module m07 failed; retried in \d+ s while the others go on/);
  });

  it('fixing both delivers them without a restart', async () => {
    await rm(hangMarker);
    await setOperatorConfig(env.api, NAMESPACE, { m03: 'fixed: true\n' });
    await eventually(
      operator,
      'all ten delivered',
      async () => ((await delivered()).length === MODULES.length ? true : undefined),
      120_000,
    );
  });
});
