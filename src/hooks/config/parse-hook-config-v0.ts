import type { JqEngine } from '../../jq/jq-engine.ts';
import type {
  HookOwner,
  KubernetesBinding,
  ParsedHookConfig,
  ScheduleBinding,
  WatchEvent,
} from '../hook-config.ts';
import type { ConfigObject } from './hook-config-reader.ts';
import { parseCrontab } from '../parse-crontab.ts';
import { checkJqFilter } from './parse-hook-config-kubernetes.ts';
import { parseLabelSelector } from './parse-hook-config-selectors.ts';
import { checkTopLevelKeys, parseOrders } from './parse-hook-config-v1.ts';

/**
 * The legacy config, without configVersion (docs/hooks.md "Configuration versions" "v0"): `onKubernetesEvent`
 * instead of `kubernetes`, everything in the main queue, no Synchronization run. Top-level fields are checked
 * strictly; fields inside bindings that v0 does not know are ignored, as Go's decoding ignores them.
 */
const V0_EVENTS: Readonly<Record<string, WatchEvent>> = {
  add: 'Added',
  update: 'Modified',
  delete: 'Deleted',
};

/** Fields only v1 has: their presence means configVersion was forgotten. */
const V1_ONLY = [
  'kubernetes',
  'settings',
  'kubernetesValidating',
  'kubernetesMutating',
  'kubernetesCustomResourceConversion',
];

export function parseConfigV0(
  root: ConfigObject,
  owner: HookOwner,
  jq: JqEngine | undefined,
): ParsedHookConfig {
  const v1Only = V1_ONLY.find((key) => root.has(key));
  if (v1Only !== undefined)
    root.fail(
      undefined,
      `'${v1Only}' is a v1 field, but a config without configVersion is read in the legacy v0 format`,
      'Add configVersion: v1 to the config.',
    );
  checkTopLevelKeys(root, owner, ['onStartup', 'schedule', 'onKubernetesEvent']);
  if (root.keys().length === 0) root.fail(undefined, 'the config declares no bindings');
  const warnings: string[] = [];
  const items = root.lenient();
  const schedule = (items.objectList('schedule') ?? []).map(parseScheduleV0);
  const kubernetes = (items.objectList('onKubernetesEvent') ?? []).map((reader) =>
    parseKubernetesV0(reader, jq, (message) => warnings.push(message)),
  );
  return { config: { version: 'v0', order: parseOrders(root, owner), schedule, kubernetes }, warnings };
}

function parseScheduleV0(reader: ConfigObject): ScheduleBinding {
  const crontab = reader.requiredString('crontab');
  const parsed = parseCrontab(crontab);
  if (!parsed.ok) reader.fail('crontab', `'${crontab}' is not a valid crontab: ${parsed.problem}`);
  return {
    name: reader.string('name') || 'schedule',
    crontab,
    schedule: parsed.schedule,
    allowFailure: reader.boolean('allowFailure') ?? false,
    queue: 'main',
    includeSnapshotsFrom: [],
  };
}

function parseKubernetesV0(
  reader: ConfigObject,
  jq: JqEngine | undefined,
  warn: (message: string) => void,
): KubernetesBinding {
  const events = reader.stringList('event', { oneOf: Object.keys(V0_EVENTS) });
  if (events === undefined)
    warn(`${reader.path} has no 'event' list, so no watch event runs the hook (as in shell-operator)`);
  const kind = reader.requiredString('kind');
  if (kind === '') reader.fail('kind', 'must name a kind, e.g. Pod or deployments');
  const objectName = reader.string('objectName') ?? '';
  const selector = reader.object('selector');
  const namespace = reader.object('namespaceSelector');
  const matchNames = namespace?.boolean('any') === true ? [] : (namespace?.stringList('matchNames') ?? []);
  const jqFilter = reader.string('jqFilter') ?? '';
  if (jqFilter !== '' && jq) checkJqFilter(reader, jqFilter, jq);
  return {
    name: reader.string('name') || 'onKubernetesEvent',
    kind,
    ...(objectName === '' ? {} : { nameSelector: { matchNames: [objectName] } }),
    ...(selector ? { labelSelector: parseLabelSelector(selector) } : {}),
    ...(matchNames.length > 0 ? { namespace: { nameSelector: { matchNames } } } : {}),
    ...(jqFilter === '' ? {} : { jqFilter }),
    executeHookOnEvent: (events ?? []).map((event) => V0_EVENTS[event] ?? 'Added'),
    // v0 bindings have no Synchronization (docs/hooks.md "Configuration versions"); snapshots need the full
    // objects.
    executeHookOnSynchronization: false,
    waitForSynchronization: false,
    keepFullObjectsInMemory: true,
    allowFailure: reader.boolean('allowFailure') ?? false,
    queue: 'main',
    includeSnapshotsFrom: [],
  };
}
