import assert from 'node:assert/strict';
import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import {
  waitReady,
  startOperatorEnvironment,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { repoRoot } from '../repo-root.ts';
import { waitModulesReady } from '../examples/module-readiness.ts';
import { findKubectlCommands, type DocCommand } from './kubectl-commands.ts';

/**
 * Every `kubectl` command of the README files and docs/ runs against the test cluster with
 * controllers, the example platform delivered by `kaddon operator`, so a wrong command fails here
 * rather than for a reader. Commands run in reading order (README.md, then docs/ by name, then the
 * other READMEs), each through bash in the repository's root, with kubectl and `kaddon` on PATH:
 * the git-webhook guide's commands find the `kaddon` Deployment that README's
 * `kubectl apply -k my-kaddon/` made (deploy/ here). A Deployment of deploy/ runs there only as KWOK's fake Pods.
 *
 * How a command is run, besides as written:
 * - inline code that only names a command (`kubectl`, `kubectl edit`) runs with `--help`: the
 *   command exists;
 * - a placeholder is replaced as `substitutions` says (a reader's own directory or modules, the
 *   module names of a page's own example);
 * - a command that cannot run here is in `skipped`, with the reason.
 * An entry of either table that matches no command of the docs fails the test, so they stay true.
 */
const docFiles = async (): Promise<string[]> => [
  'README.md',
  ...(await readdir(path.join(repoRoot, 'docs')))
    // docs/install.md is followed line by line, uninstall included, by test/package/install-guide.test.ts.
    .filter((name) => name.endsWith('.md') && name !== 'install.md')
    .sort()
    .map((name) => `docs/${name}`),
  'examples/platform/README.md',
  'examples/chart-module/README.md',
  'components/README.md',
];

interface Substitution {
  readonly file: string;
  readonly command: string;
  readonly from: string;
  readonly to: string;
  readonly why: string;
}

const substitutions: readonly Substitution[] = [
  {
    file: 'docs/ui.md',
    command: 'kubectl create token NAME',
    from: 'create token NAME',
    to: '-n kaddon create token kaddon',
    why: "a ServiceAccount of the reader's: deploy/'s own",
  },
  {
    file: 'docs/monitoring.md',
    command: 'kubectl describe module NAME',
    from: 'NAME',
    to: 'greeter',
    why: 'a module of the runbooks',
  },
  {
    file: 'README.md',
    command: 'kubectl apply -k my-kaddon/',
    from: 'my-kaddon/',
    to: 'deploy/',
    why: 'the overlay docs/install.md has the reader write; deploy/ is what it lists',
  },
  {
    file: 'README.md',
    command: 'kubectl kustomize DIR',
    from: 'DIR',
    to: 'examples/kustomize/overlays/production',
    why: 'any kustomization directory',
  },
  {
    file: 'README.md',
    command: 'kaddon rbac modules/ --namespace kaddon --service-account kaddon | kubectl apply -f -',
    from: 'modules/',
    to: 'examples/platform/modules/',
    why: "the reader's modules tree",
  },
  {
    file: 'docs/module-status.md',
    command: 'kubectl wait --for=condition=Ready module/healthy --timeout=5m',
    from: 'module/healthy',
    to: 'module/greeter',
    why: "the page's example module",
  },
  {
    file: 'docs/module-status.md',
    command: 'kubectl describe module broken',
    from: 'broken',
    to: 'redis',
    why: "the page's example module",
  },
  {
    file: 'docs/drift.md',
    command: 'kubectl get events -n default --field-selector involvedObject.name=app',
    from: 'app',
    to: 'echo-server',
    why: "the page's example module",
  },
];

const skipped: readonly { file: string; command: string; reason: string }[] = [
  {
    file: 'docs/notifications.md',
    command:
      'kubectl -n kaddon create secret generic kaddon-notifications --from-literal=slack-url=https://hooks.slack.com/services/T000/B000/XXXX',
    reason: "a chat's URL of the reader's; test/operator/operator-maintenance.test.ts creates the Secret",
  },
  {
    file: 'docs/notifications.md',
    command: 'kubectl -n kaddon create configmap kaddon-notifications --from-file=notifications=routing.yaml',
    reason: "the reader's routing file; test/operator/operator-maintenance.test.ts creates the ConfigMap",
  },
  {
    file: 'docs/notifications.md',
    command: 'kubectl -n kaddon rollout restart deployment kaddon',
    reason: "restarts deploy/'s Deployment, whose Pods here are KWOK's: nothing reads the routing",
  },
  {
    file: 'docs/operations.md',
    command:
      'kubectl -n <namespace> annotate configmap addon-operator --overwrite reconcile.kaddon.dev/requestedAt="$(date +%s)"',
    reason:
      'a placeholder for the operator namespace; test/operator/operator-maintenance.test.ts sets the annotation (kaddon module reconcile --all)',
  },
  {
    file: 'docs/lifecycle.md',
    command:
      'kubectl -n <namespace> annotate configmap addon-operator --overwrite kaddon.dev/allow-prune=<id>',
    reason: 'placeholders for a held prune: test/operator/operator-missing-inputs.test.ts confirms one so',
  },
  {
    file: 'docs/monitoring.md',
    command: 'kubectl -n kaddon exec deploy/kaddon -- kaddon …',
    reason: "a pattern (`…`), and exec needs a running container: KWOK's Pods run none",
  },
  {
    file: 'docs/monitoring.md',
    command: 'kubectl -n kaddon get lease addon-operator-leader-election -o yaml',
    reason: 'the lease exists only with ADDON_OPERATOR_HA; test/operator/operator-ha.test.ts reads it',
  },
  {
    file: 'README.md',
    command: 'kubectl apply -f -',
    reason: "applies what is piped to it: README's `kaddon rbac … | kubectl apply -f -` runs it",
  },
  {
    file: 'docs/monitoring.md',
    command: 'kubectl -n kaddon exec deploy/kaddon -- kaddon queue main',
    reason: "exec needs a running container: KWOK's Pods run none",
  },
  {
    file: 'docs/observability.md',
    command: 'kubectl exec … -- <command> queue list',
    reason: 'a pattern (`…`, `<command>`), and exec needs a running container',
  },
];

/** The command line to run for `doc`, or why it is not run. */
function plan(doc: DocCommand): { run: string } | { skip: string } {
  const skip = skipped.find((entry) => entry.file === doc.file && entry.command === doc.command);
  if (skip) return { skip: skip.reason };
  if (doc.inline && /^kubectl( [a-z-]+){0,2}$/.test(doc.command)) return { run: `${doc.command} --help` };
  const substitution = substitutions.find(
    (entry) => entry.file === doc.file && entry.command === doc.command,
  );
  return { run: substitution ? doc.command.replace(substitution.from, substitution.to) : doc.command };
}

async function readCommands(): Promise<DocCommand[]> {
  const commands: DocCommand[] = [];
  for (const file of await docFiles())
    commands.push(...findKubectlCommands(file, await readFile(path.join(repoRoot, file), 'utf8')));
  return commands;
}

const NAMESPACE = 'kaddon-docs';
const commands = await readCommands();
let env: OperatorEnvironment;
let shellEnv: Record<string, string>;

before(async () => {
  env = await startOperatorEnvironment({
    namespace: NAMESPACE,
    prefix: 'kubectl-in-docs',
    withControllers: true,
  });
  await cp(path.join(repoRoot, 'examples/platform/modules'), path.join(env.tree.root, 'modules'), {
    recursive: true,
  });
  const operator = env.startOperator({ forceKillAfterDelay: 30_000 });
  await waitReady(operator, env.port, 300_000);
  const enabled = ['echo-server', 'redis', 'prometheus', 'nightly-report', 'greeter', 'platform-policy'];
  await waitModulesReady(operator, env.api, enabled, 300_000);
  const bin = env.tree.write('bin', {
    kaddon: `#!/bin/sh\nexec "${process.execPath}" "${path.join(repoRoot, 'bin/kaddon.js')}" "$@"\n`,
  });
  await execa('chmod', ['+x', path.join(bin, 'kaddon')]);
  const kubectlDir = path.dirname((await ensureHelm()).kubectl);
  shellEnv = {
    PATH: `${kubectlDir}:${bin}:${process.env.PATH ?? ''}`,
    KUBECONFIG: env.cluster.kubeconfigPath,
    HOME: env.tree.root,
  };
});
after(() => env.stop());

describe('the kubectl commands of the docs', () => {
  it('finds them, and every substitution and skip names one of them', () => {
    assert.ok(commands.length >= 20, `only ${commands.length} commands found`);
    const isListed = (entry: { file: string; command: string }) =>
      commands.some((doc) => doc.file === entry.file && doc.command === entry.command);
    assert.deepEqual(
      substitutions.filter((entry) => !isListed(entry)),
      [],
    );
    assert.deepEqual(
      skipped.filter((entry) => !isListed(entry)),
      [],
    );
  });

  for (const doc of commands) {
    const how = plan(doc);
    const title = `${doc.file}:${doc.line} ${doc.command}`;
    if ('skip' in how) {
      it(title, { skip: how.skip }, () => undefined);
      continue;
    }
    it(title, async () => {
      const result = await execa('bash', ['-c', how.run], {
        cwd: repoRoot,
        env: shellEnv,
        extendEnv: false,
        reject: false,
        all: true,
        stdin: 'ignore',
        timeout: 360_000,
      });
      assert.equal(result.exitCode, 0, `\`${how.run}\` exited ${String(result.exitCode)}:\n${result.all}`);
    });
  }
});
