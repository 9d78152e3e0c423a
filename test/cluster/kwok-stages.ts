/**
 * The Stages KWOK plays on the Nodes and Pods it manages (kwok's Stage API, kwok.x-k8s.io/v1alpha1):
 * the bare `kwok` command has none built in. Each Stage matches objects by jq-like expressions and
 * patches their status with a Go template; `delete` removes the object. KWOK only sees Pods bound
 * to the Nodes it manages, so a Pod the scheduler could not place stays Pending, untouched.
 */
export interface Stage {
  readonly apiVersion: 'kwok.x-k8s.io/v1alpha1';
  readonly kind: 'Stage';
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly resourceRef: { readonly apiGroup: 'v1'; readonly kind: 'Node' | 'Pod' };
    readonly selector: { readonly matchExpressions: readonly MatchExpression[] };
    readonly next: StageNext;
  };
}

interface MatchExpression {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values?: readonly string[];
}

type StageNext =
  | { readonly delete: true }
  | {
      readonly patches: readonly [
        { subresource: 'status'; root: 'status'; type: 'strategic'; template: string },
      ];
    };

const readyStatus = '.status.conditions.[] | select( .type == "Ready" ) | .status';
const notDeleted: MatchExpression = { key: '.metadata.deletionTimestamp', operator: 'DoesNotExist' };

/** A Node becomes Ready with the usual healthy conditions; its capacity is what the harness gave it. */
const nodeReady = stage(
  'node-ready',
  'Node',
  [{ key: readyStatus, operator: 'NotIn', values: ['True'] }],
  [
    '{{ $now := Now }}',
    'conditions:',
    '{{ range NodeConditions }}',
    '- type: {{ .type | Quote }}',
    '  status: {{ .status | Quote }}',
    '  reason: {{ .reason | Quote }}',
    '  message: {{ .message | Quote }}',
    '  lastHeartbeatTime: {{ $now | Quote }}',
    '  lastTransitionTime: {{ $now | Quote }}',
    '{{ end }}',
    'phase: Running',
  ],
);

/** A bound Pod runs at once: every container started and ready, init containers completed. */
const podRunning = stage(
  'pod-running',
  'Pod',
  [notDeleted, { key: '.status.phase', operator: 'In', values: ['Pending'] }],
  [
    '{{ $now := Now }}',
    'conditions:',
    '{{ range list "PodScheduled" "Initialized" "ContainersReady" "Ready" }}',
    '- type: {{ . }}',
    '  status: "True"',
    '  lastTransitionTime: {{ $now | Quote }}',
    '{{ end }}',
    'initContainerStatuses:',
    '{{ range .spec.initContainers }}',
    '- name: {{ .name | Quote }}',
    '  image: {{ .image | Quote }}',
    '  ready: true',
    '  restartCount: 0',
    '  state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}',
    '{{ end }}',
    'containerStatuses:',
    '{{ range .spec.containers }}',
    '- name: {{ .name | Quote }}',
    '  image: {{ .image | Quote }}',
    '  ready: true',
    '  started: true',
    '  restartCount: 0',
    '  state: {running: {startedAt: {{ $now | Quote }}}}',
    '{{ end }}',
    'podIP: {{ PodIP | Quote }}',
    'phase: Running',
    'startTime: {{ $now | Quote }}',
  ],
);

/** A running Pod of a Job finishes successfully, so the Job completes. */
const jobPodSucceeded = stage(
  'job-pod-succeeded',
  'Pod',
  [
    notDeleted,
    { key: '.status.phase', operator: 'In', values: ['Running'] },
    { key: '.metadata.ownerReferences.[].kind', operator: 'In', values: ['Job'] },
  ],
  [
    '{{ $now := Now }}',
    'conditions:',
    '{{ range list "ContainersReady" "Ready" }}',
    '- type: {{ . }}',
    '  status: "False"',
    '  reason: PodCompleted',
    '  lastTransitionTime: {{ $now | Quote }}',
    '{{ end }}',
    'containerStatuses:',
    '{{ range .spec.containers }}',
    '- name: {{ .name | Quote }}',
    '  image: {{ .image | Quote }}',
    '  ready: false',
    '  started: false',
    '  restartCount: 0',
    '  state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}',
    '{{ end }}',
    'phase: Succeeded',
  ],
);

/** There is no kubelet to finish a graceful deletion, so a Pod being deleted goes at once. */
const podDeleted: Stage = {
  apiVersion: 'kwok.x-k8s.io/v1alpha1',
  kind: 'Stage',
  metadata: { name: 'pod-deleted' },
  spec: {
    resourceRef: { apiGroup: 'v1', kind: 'Pod' },
    selector: { matchExpressions: [{ key: '.metadata.deletionTimestamp', operator: 'Exists' }] },
    next: { delete: true },
  },
};

export const kwokStages: readonly Stage[] = [nodeReady, podRunning, jobPodSucceeded, podDeleted];

function stage(
  name: string,
  kind: 'Node' | 'Pod',
  matchExpressions: readonly MatchExpression[],
  template: readonly string[],
): Stage {
  return {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'Stage',
    metadata: { name },
    spec: {
      resourceRef: { apiGroup: 'v1', kind },
      selector: { matchExpressions },
      next: {
        patches: [
          { subresource: 'status', root: 'status', type: 'strategic', template: template.join('\n') + '\n' },
        ],
      },
    },
  };
}
