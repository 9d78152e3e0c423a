import type { JqEngine } from '../../jq/jq-engine.ts';
import { WATCH_EVENTS, type KubernetesBinding } from '../hook-config.ts';
import type { ConfigObject } from './hook-config-reader.ts';
import {
  isGroupVersion,
  parseFieldSelector,
  parseLabelSelector,
  parseNameSelector,
  parseNamespaceSelector,
} from './parse-hook-config-selectors.ts';

/** Every field of a v1 `kubernetes` binding (docs/hooks.md "kubernetes"); `mode` is internal and refused. */
const KUBERNETES_FIELDS = [
  'name',
  'apiVersion',
  'kind',
  'nameSelector',
  'labelSelector',
  'fieldSelector',
  'namespace',
  'jqFilter',
  'executeHookOnEvent',
  'watchEvent',
  'executeHookOnSynchronization',
  'waitForSynchronization',
  'keepFullObjectsInMemory',
  'allowFailure',
  'queue',
  'group',
  'includeSnapshotsFrom',
  'resynchronizationPeriod',
];

export interface KubernetesParseContext {
  readonly jq: JqEngine | undefined;
  readonly warn: (message: string) => void;
}

export function parseKubernetesBinding(
  reader: ConfigObject,
  context: KubernetesParseContext,
): KubernetesBinding {
  reader.allowOnly(KUBERNETES_FIELDS, 'a kubernetes binding');
  return {
    name: reader.string('name') || 'kubernetes',
    ...parseWatched(reader, context),
    ...parseRunning(reader),
  };
}

/** What the binding watches: the kind, the selectors and the jqFilter. */
function parseWatched(reader: ConfigObject, context: KubernetesParseContext) {
  const apiVersion = reader.string('apiVersion');
  if (apiVersion !== undefined && !isGroupVersion(apiVersion))
    reader.fail('apiVersion', `'${apiVersion}' is not a group/version such as v1 or apps/v1`);
  const kind = reader.requiredString('kind');
  if (kind === '') reader.fail('kind', 'must name a kind, e.g. Pod or deployments');
  const nameSelector = optional(reader.object('nameSelector'), parseNameSelector);
  const fieldSelector = optional(reader.object('fieldSelector'), parseFieldSelector);
  if (
    nameSelector?.matchNames.length &&
    fieldSelector?.matchExpressions.some((e) => e.field === 'metadata.name')
  )
    reader.fail(
      'fieldSelector',
      `a 'metadata.name' expression and nameSelector.matchNames are mutually exclusive`,
    );
  const namespace = reader.object('namespace');
  const jqFilter = reader.string('jqFilter') ?? '';
  if (jqFilter !== '' && context.jq) checkJqFilter(reader, jqFilter, context.jq);
  return {
    ...(apiVersion ? { apiVersion } : {}),
    kind,
    ...(nameSelector ? { nameSelector } : {}),
    ...optionalField('labelSelector', optional(reader.object('labelSelector'), parseLabelSelector)),
    ...(fieldSelector ? { fieldSelector } : {}),
    ...optionalField('namespace', namespace && parseNamespaceSelector(namespace, context.warn)),
    ...(jqFilter === '' ? {} : { jqFilter }),
  };
}

/** How events become hook runs, with shell-operator's defaults. */
function parseRunning(reader: ConfigObject) {
  const queue = reader.string('queue') ?? '';
  const waitForSynchronization = reader.boolean('waitForSynchronization') ?? true;
  const group = reader.string('group') ?? '';
  const resync = reader.string('resynchronizationPeriod');
  return {
    executeHookOnEvent: watchEvents(reader),
    executeHookOnSynchronization: reader.boolean('executeHookOnSynchronization') ?? true,
    // shell-operator keeps waitForSynchronization: false only for a binding with its own queue.
    waitForSynchronization: queue === '' || waitForSynchronization,
    keepFullObjectsInMemory: reader.boolean('keepFullObjectsInMemory') ?? true,
    allowFailure: reader.boolean('allowFailure') ?? false,
    queue: queue || 'main',
    ...(group === '' ? {} : { group }),
    includeSnapshotsFrom: reader.stringList('includeSnapshotsFrom', { minItems: 1 }) ?? [],
    ...(resync === undefined ? {} : { resynchronizationPeriod: resync }),
  };
}

/** executeHookOnEvent, or its deprecated alias watchEvent; all events when neither is set. */
function watchEvents(reader: ConfigObject): KubernetesBinding['executeHookOnEvent'] {
  const alias = reader.stringList('watchEvent', { oneOf: WATCH_EVENTS });
  return reader.stringList('executeHookOnEvent', { oneOf: WATCH_EVENTS }) ?? alias ?? WATCH_EVENTS;
}

/**
 * shell-operator compiles jqFilter when it loads the config. Wrapping the filter in a branch that
 * never runs makes jq compile it without evaluating it on any input.
 */
export function checkJqFilter(reader: ConfigObject, filter: string, jq: JqEngine): void {
  try {
    jq.evaluate(`if false then (\n${filter}\n) else null end`, null, reader.pathOf('jqFilter'));
  } catch (error: unknown) {
    reader.fail(
      'jqFilter',
      `'${filter}' is not a valid jq filter`,
      `Correct the filter (jq 1.8 syntax).${jqDetail(error)}`,
    );
  }
}

/** jq's own words, without the position, which points into the wrapped filter. */
function jqDetail(error: unknown): string {
  const jqError = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (!(jqError instanceof Error)) return '';
  const line = (jqError.message.split('\n')[0] ?? '').replace(/ at <top-level>.*$/, '');
  return line === '' ? '' : ` jq says: ${line}`;
}

function optional<T>(reader: ConfigObject | undefined, parse: (reader: ConfigObject) => T): T | undefined {
  return reader === undefined ? undefined : parse(reader);
}

function optionalField<K extends string, T>(key: K, value: T | undefined): { [P in K]?: T } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: T };
}
