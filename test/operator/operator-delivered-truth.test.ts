import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { KubeApiError } from '../../src/delivery/kube-client.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

/**
 * What lands is what the tree says (docs/delivery.md "Objects moving between modules", "Revisions
 * kaddon did not write", docs/lifecycle.md "Helm delivery"), with each engine: a module whose slice
 * empties has its release upgraded to nothing; an object moving from one module to another in one
 * edit is never deleted; a revision written by hand (another chart with `--reuse-values`, a
 * rollback) is taken back, while running and at a restart.
 */

const COMPONENT = 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n';

function configMap(name: string, data = 'value: "1"'): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  ${data}\n`;
}

/** A module with its own ConfigMap, an optional part and the shared `wanderer` when its values say so. */
function moduleFiles(namespace: string, module: string): Record<string, string> {
  return {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ${namespace}
resources: [own.yaml]
components:
- path: components/part
  when: .${module}.part
- path: components/wanderer
  when: .${module}.wanderer
`,
    'own.yaml': configMap(`${module}-own`),
    'values.yaml': `${module}Enabled: true\n${module}:\n  part: false\n  wanderer: false\n`,
    'components/part/kustomization.yaml': `${COMPONENT}resources: [part.yaml]\n`,
    'components/part/part.yaml': configMap(`${module}-part`),
    'components/wanderer/kustomization.yaml': `${COMPONENT}resources: [wanderer.yaml]\n`,
    'components/wanderer/wanderer.yaml': configMap('wanderer', 'value: "moves"'),
  };
}

/** A module whose only object comes from a component its values turn on. */
function optionalModuleFiles(namespace: string, module: string): Record<string, string> {
  return {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ${namespace}
components:
- path: components/part
  when: .${module}.part
`,
    'values.yaml': `${module}Enabled: true\n${module}:\n  part: true\n`,
    'components/part/kustomization.yaml': `${COMPONENT}resources: [part.yaml]\n`,
    'components/part/part.yaml': configMap(`${module}-part`),
  };
}

for (const delivery of ['native', 'helm'] as const) {
  describe(`what lands is what the tree says, with KADDON_DELIVERY=${delivery}`, () => {
    const namespace = `kaddon-truth-${delivery}`;
    let env: OperatorEnvironment;
    let operator: E2eOperator;

    before(async () => {
      env = await startOperatorEnvironment({ namespace, prefix: `truth-${delivery}` });
      env.tree.write('modules/010-alpha', moduleFiles(namespace, 'alpha'));
      env.tree.write('modules/020-beta', moduleFiles(namespace, 'beta'));
      env.tree.write('modules/030-gamma', optionalModuleFiles(namespace, 'gamma'));
      env.tree.write('other-chart', {
        'Chart.yaml': 'apiVersion: v2\nname: intruder\nversion: 1.0.0\n',
        'templates/intruder.yaml': configMap('intruder'),
      });
      await setOperatorConfig(env.api, namespace, { alpha: 'wanderer: true\n' });
      operator = start();
      await waitReady(operator, env.port);
    });
    after(() => env.stop());

    function start(): E2eOperator {
      return env.startOperator({
        forceKillAfterDelay: 30_000,
        extraEnv: { KADDON_DELIVERY: delivery, KADDON_RESOURCES_MONITOR_INTERVAL: '1s' },
      });
    }

    async function live(name: string): Promise<{ uid: string; release: string } | undefined> {
      try {
        const object = await env.api.request('GET', `/api/v1/namespaces/${namespace}/configmaps/${name}`);
        const metadata = object.metadata as { uid: string; annotations?: Record<string, string> };
        return { uid: metadata.uid, release: metadata.annotations?.['meta.helm.sh/release-name'] ?? '' };
      } catch (error: unknown) {
        if (error instanceof KubeApiError && error.status === 404) return undefined;
        throw error;
      }
    }

    async function manifest(release: string): Promise<string> {
      const { stdout } = await helm(['get', 'manifest', release]);
      return stdout;
    }

    function helm(args: readonly string[]): Promise<{ stdout: string }> {
      return execa(env.helmPath, [...args, '--namespace', namespace], {
        env: { KUBECONFIG: env.cluster.kubeconfigPath },
      });
    }

    it('upgrades the release of a module whose slice empties to nothing, deleting what it held', async () => {
      assert.ok(await live('gamma-part'), 'gamma delivered its part');
      await setOperatorConfig(env.api, namespace, { gamma: 'part: false\n' });
      await eventually(operator, 'gamma-part deleted', async () =>
        (await live('gamma-part')) === undefined ? true : undefined,
      );
      assert.equal((await manifest('gamma')).trim(), '', 'the release holds nothing');
      assert.equal((await env.helm.status('gamma', namespace))?.status, 'deployed');
      // And the module's own part coming back is delivered again.
      await setOperatorConfig(env.api, namespace, { gamma: 'part: true\n' });
      await eventually(operator, 'gamma-part back', async () =>
        (await live('gamma-part')) ? true : undefined,
      );
    });

    it('hands an object moving between modules in one edit over, never deleting it', async () => {
      const before = await live('wanderer');
      assert.equal(before?.release, 'alpha');
      for (const [from, to] of [
        ['alpha', 'beta'],
        ['beta', 'alpha'],
        ['alpha', 'beta'],
      ] as const) {
        await setOperatorConfig(env.api, namespace, {
          [from]: 'wanderer: false\n',
          [to]: 'wanderer: true\n',
        });
        await eventually(operator, `both releases settle with the wanderer in ${to}`, async () => {
          const [fromManifest, toManifest] = await Promise.all([manifest(from), manifest(to)]);
          return !fromManifest.includes('name: wanderer') && toManifest.includes('name: wanderer')
            ? true
            : undefined;
        });
        await eventually(operator, `the wanderer annotated as ${to}'s`, async () =>
          (await live('wanderer'))?.release === to ? true : undefined,
        );
        assert.equal((await live('wanderer'))?.uid, before.uid, `moved to ${to} without being deleted`);
      }
    });

    it('takes back a revision upgraded by hand with another chart and --reuse-values, and a rollback', async () => {
      const desired = await manifest('alpha');
      await helm(['upgrade', 'alpha', path.join(env.tree.root, 'other-chart'), '--reuse-values']);
      await eventually(operator, 'the hand upgrade taken back', async () =>
        (await manifest('alpha')) === desired && (await live('intruder')) === undefined ? true : undefined,
      );
      // The line follows the release record it reports: under load the record can be read first.
      await eventually(operator, 'the take-back logged', () =>
        Promise.resolve(
          /release revision not written by kaddon taken back/u.test(operator.output()) ? true : undefined,
        ),
      );
      const revision = (await env.helm.status('alpha', namespace))?.revision ?? 0;
      await helm(['rollback', 'alpha', String(revision - 1)]);
      await eventually(operator, 'the rollback taken back', async () => {
        const status = await env.helm.status('alpha', namespace);
        return status && status.revision > revision + 1 && (await manifest('alpha')) === desired
          ? true
          : undefined;
      });
      assert.equal((await live('intruder')) === undefined, true);
    });

    it('takes back a revision written by hand while kaddon was stopped, at its restart', async () => {
      operator.process.kill('SIGTERM');
      await operator.process;
      const desired = await manifest('beta');
      await helm(['upgrade', 'beta', path.join(env.tree.root, 'other-chart'), '--reuse-values']);
      operator = start();
      await waitReady(operator, env.port);
      await eventually(operator, 'the hand upgrade taken back at the restart', async () =>
        (await manifest('beta')) === desired && (await live('intruder')) === undefined ? true : undefined,
      );
    });

    it('hands over the object of a module disabled in the same edit that gives it to another', async () => {
      await setOperatorConfig(env.api, namespace, { alpha: 'wanderer: true\n', beta: 'wanderer: false\n' });
      await eventually(operator, 'the wanderer in alpha', async () =>
        (await live('wanderer'))?.release === 'alpha' && !(await manifest('beta')).includes('name: wanderer')
          ? true
          : undefined,
      );
      const before = await live('wanderer');
      await setOperatorConfig(env.api, namespace, { alphaEnabled: 'false', beta: 'wanderer: true\n' });
      await eventually(operator, 'alpha uninstalled and the wanderer in beta', async () =>
        (await env.helm.status('alpha', namespace)) === undefined &&
        (await live('wanderer'))?.release === 'beta'
          ? true
          : undefined,
      );
      assert.equal((await live('wanderer'))?.uid, before?.uid, 'handed over without being deleted');
      assert.equal(await live('alpha-own'), undefined, `alpha's own object is deleted:\n${operator.tail()}`);
    });
  });
}
