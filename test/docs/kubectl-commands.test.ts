import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findKubectlCommands } from './kubectl-commands.ts';

const markdown = [
  'Run `kubectl get modules` or see `kubectl`; `helm list` is not one.', // 1
  '```console', // 2
  '$ kubectl wait --for=condition=Ready module/a   # waits', // 3
  'module.kaddon.dev/a condition met', // 4
  '```', // 5
  '```sh', // 6
  'kaddon rbac modules/ | kubectl apply -f -', // 7
  'kubectl create secret generic s --from-literal=k="a # b" \\', // 8
  '  --dry-run=client', // 9
  'helm list', // 10
  '```', // 11
  'Inline `kubectl edit` after the block.', // 12
].join('\n');

describe('the kubectl commands of a markdown text', () => {
  it('finds code-block lines with a kubectl stage and inline code starting with kubectl', () => {
    assert.deepEqual(
      findKubectlCommands('doc.md', markdown).map((c) => [c.line, c.inline, c.command]),
      [
        [1, true, 'kubectl get modules'],
        [1, true, 'kubectl'],
        [3, false, 'kubectl wait --for=condition=Ready module/a'],
        [7, false, 'kaddon rbac modules/ | kubectl apply -f -'],
        [8, false, 'kubectl create secret generic s --from-literal=k="a # b" --dry-run=client'],
        [12, true, 'kubectl edit'],
      ],
    );
  });
});
