import { LineCounter, parseDocument } from 'yaml';
import { closestName } from '../../core/closest-name.ts';
import { KaddonError } from '../../core/errors.ts';
import { GO_DURATION_UNITS, parseGoDuration } from '../../core/go-duration.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { NOTIFICATION_KINDS, type NotificationKind } from './notification-event.ts';

const CHANNEL_TYPES = ['slack', 'teams', 'webhook'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** One destination, with its URL and HMAC key already read from the Secret. */
export interface NotificationChannel {
  readonly name: string;
  readonly type: ChannelType;
  /** A secret: whoever holds the URL can post to the channel. Never logged. */
  readonly url: string;
  /** The HMAC-SHA256 key the generic webhook signs its bodies with; webhook channels only. */
  readonly hmacKey: string | undefined;
  readonly events: readonly NotificationKind[];
  /** Globs over module names with `*` as the only wildcard. */
  readonly modules: readonly string[];
}

export interface NotificationConfig {
  readonly channels: readonly NotificationChannel[];
  readonly groupWindowMs: number;
  /** Requests per minute to each channel. */
  readonly perMinute: number;
  /** How long one message is retried before it is dropped. */
  readonly retryBudgetMs: number;
}

/** A notifications ConfigMap key or Secret that cannot be used, naming the field to fix. */
export class NotificationConfigError extends KaddonError {
  readonly code = 'notification-config-invalid';
  readonly field: string;

  constructor(field: string, problem: string, hint: string, options?: { cause?: unknown }) {
    super(`notifications: ${field}: ${problem}.`, hint, options);
    this.field = field;
  }
}

/**
 * The quiet default: what needs a person. Deliveries and corrected drift happen all day and are
 * asked for by name (docs/notifications.md "Channels").
 */
const DEFAULT_EVENTS: readonly NotificationKind[] = [
  'failure',
  'recovery',
  'held-uninstall',
  'maintenance-start',
  'maintenance-end',
];

const MAX_CHANNELS = 20;
const MAX_MODULE_GLOBS = 100;
const MAX_URL_LENGTH = 2048;
const MINUTE = 60_000;
const DEFAULTS = { groupWindowMs: 10_000, perMinute: 20, retryBudgetMs: 15 * MINUTE };
const TOP_KEYS = ['channels', 'groupWindow', 'rateLimit', 'retry'];
const CHANNEL_KEYS = ['name', 'type', 'urlKey', 'secretKey', 'events', 'modules'];

/**
 * Reads the `notifications` key of the notifications ConfigMap and takes the URLs and HMAC keys
 * it names from the Secret's data (docs/notifications.md "Configuration"). Strict: an unknown key,
 * a value out of bounds or a key missing from the Secret is an error naming the field.
 */
export function parseNotificationConfig(
  text: string,
  secretData: Readonly<Record<string, string>>,
  secretName = 'notifications',
): NotificationConfig {
  const root = parseYaml(text);
  checkKeys(root, TOP_KEYS, '');
  const channelItems = readList(root, 'channels', '', MAX_CHANNELS) ?? [];
  const channels = channelItems.map((item, index) =>
    readChannel(item, `channels[${index}]`, secretData, secretName),
  );
  checkUniqueNames(channels);
  const rateLimit = readMap(root, 'rateLimit');
  const retry = readMap(root, 'retry');
  return {
    channels,
    groupWindowMs: readDuration(root, 'groupWindow', '', [0, 10 * MINUTE]) ?? DEFAULTS.groupWindowMs,
    perMinute: readPerMinute(rateLimit) ?? DEFAULTS.perMinute,
    retryBudgetMs:
      readDuration(retry, 'budget', 'retry.', [1_000, 24 * 60 * MINUTE]) ?? DEFAULTS.retryBudgetMs,
  };
}

function parseYaml(text: string): JsonObject {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const first = document.errors[0];
  if (first !== undefined) {
    const line = lineCounter.linePos(first.pos[0]).line;
    throw new NotificationConfigError(
      `line ${line}`,
      `not valid YAML (${first.code})`,
      'Fix the YAML syntax there.',
      {
        cause: first,
      },
    );
  }
  const value: unknown = document.toJS({ maxAliasCount: 50 });
  if (value === null || value === undefined) return {};
  if (!isJsonObject(value))
    throw new NotificationConfigError('(top level)', 'is not a map', 'Write a map with a `channels` list.');
  return value;
}

function readChannel(
  item: unknown,
  at: string,
  secretData: Readonly<Record<string, string>>,
  secretName: string,
): NotificationChannel {
  if (!isJsonObject(item))
    throw new NotificationConfigError(at, 'is not a map', 'Give each channel a name, a type and a urlKey.');
  checkKeys(item, CHANNEL_KEYS, `${at}.`);
  const name = readName(item, at);
  const type = readOneOf(item, 'type', `${at}.`, CHANNEL_TYPES);
  const url = readUrl(item, at, secretData, secretName);
  const hmacKey = readHmacKey(item, at, type, secretData, secretName);
  const events = readEvents(item, at);
  const modules = readModuleGlobs(item, at);
  return { name, type, url, hmacKey, events, modules };
}

function readName(channel: JsonObject, at: string): string {
  const name = readString(channel, 'name', `${at}.`);
  if (!/^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/.test(name))
    throw new NotificationConfigError(
      `${at}.name`,
      `${JSON.stringify(name)} is not a valid channel name`,
      'Use lower-case letters, digits and dashes, at most 63 characters: the name appears in logs and metrics.',
    );
  return name;
}

function readUrl(
  channel: JsonObject,
  at: string,
  secretData: Readonly<Record<string, string>>,
  secretName: string,
): string {
  const url = readSecretValue(channel, 'urlKey', at, secretData, secretName);
  const field = `${at}.urlKey`;
  // The URL itself is never quoted in a message: it is a secret (docs/notifications.md "Secrets").
  const where = `the value of key '${readString(channel, 'urlKey', '')}' in Secret '${secretName}'`;
  if (url.length > MAX_URL_LENGTH)
    throw new NotificationConfigError(
      field,
      `${where} is longer than ${MAX_URL_LENGTH} characters`,
      'Store the webhook URL alone under that key.',
    );
  if (!isHttpUrl(url))
    throw new NotificationConfigError(
      field,
      `${where} is not an http:// or https:// URL`,
      'Store the webhook URL alone under that key, with no quotes or spaces.',
    );
  return url;
}

function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    return new URL(text).hostname !== '';
  } catch {
    return false;
  }
}

function readHmacKey(
  channel: JsonObject,
  at: string,
  type: ChannelType,
  secretData: Readonly<Record<string, string>>,
  secretName: string,
): string | undefined {
  if (type !== 'webhook') {
    if (channel.secretKey !== undefined)
      throw new NotificationConfigError(
        `${at}.secretKey`,
        `is used by webhook channels only, not ${type}`,
        'Remove it: Slack and Teams URLs carry their own secret.',
      );
    return undefined;
  }
  if (channel.secretKey === undefined)
    throw new NotificationConfigError(
      `${at}.secretKey`,
      'is required for a webhook channel',
      `Name the key in Secret '${secretName}' that holds the HMAC key the bodies are signed with.`,
    );
  return readSecretValue(channel, 'secretKey', at, secretData, secretName);
}

function readSecretValue(
  channel: JsonObject,
  key: 'urlKey' | 'secretKey',
  at: string,
  secretData: Readonly<Record<string, string>>,
  secretName: string,
): string {
  const secretKey = readString(channel, key, `${at}.`);
  const value = Object.hasOwn(secretData, secretKey) ? secretData[secretKey]?.trim() : undefined;
  if (value === undefined || value === '')
    throw new NotificationConfigError(
      `${at}.${key}`,
      `key '${secretKey}' is ${value === undefined ? 'missing from' : 'empty in'} Secret '${secretName}'`,
      `Add the key to Secret '${secretName}' or correct ${key}.`,
    );
  return value;
}

function readEvents(channel: JsonObject, at: string): readonly NotificationKind[] {
  const items = readList(channel, 'events', `${at}.`, NOTIFICATION_KINDS.length);
  if (items === undefined) return DEFAULT_EVENTS;
  if (items.length === 0)
    throw new NotificationConfigError(
      `${at}.events`,
      'is empty',
      'List at least one event, or leave `events` out for the default.',
    );
  return [
    ...new Set(items.map((item, index) => checkOneOf(item, `${at}.events[${index}]`, NOTIFICATION_KINDS))),
  ];
}

function readModuleGlobs(channel: JsonObject, at: string): readonly string[] {
  const items = readList(channel, 'modules', `${at}.`, MAX_MODULE_GLOBS);
  if (items === undefined) return ['*'];
  return items.map((item, index) => {
    if (typeof item !== 'string' || !/^[a-z0-9*][-a-z0-9*]{0,252}$/.test(item))
      throw new NotificationConfigError(
        `${at}.modules[${index}]`,
        `${JSON.stringify(item)} is not a module name pattern`,
        'Use a module name, with `*` for any run of characters (`ingress-*`).',
      );
    return item;
  });
}

function checkUniqueNames(channels: readonly NotificationChannel[]): void {
  const seen = new Set<string>();
  channels.forEach(({ name }, index) => {
    if (seen.has(name))
      throw new NotificationConfigError(
        `channels[${index}].name`,
        `'${name}' is used by an earlier channel`,
        'Give each channel its own name.',
      );
    seen.add(name);
  });
}

function readPerMinute(rateLimit: JsonObject): number | undefined {
  checkKeys(rateLimit, ['perMinute'], 'rateLimit.');
  const value = rateLimit.perMinute;
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 600)
    throw new NotificationConfigError(
      'rateLimit.perMinute',
      `${JSON.stringify(value)} is not a whole number from 1 to 600`,
      'Give the requests per minute each channel may take.',
    );
  return value;
}

function readDuration(
  map: JsonObject,
  key: string,
  prefix: string,
  [min, max]: readonly [number, number],
): number | undefined {
  const value = map[key];
  if (value === undefined) return undefined;
  const ms = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (ms === undefined)
    throw new NotificationConfigError(
      `${prefix}${key}`,
      `${JSON.stringify(value)} is not a duration`,
      `Write a number with a unit (${GO_DURATION_UNITS}), like 10s, 5m or 1h.`,
    );
  if (ms < min || ms > max)
    throw new NotificationConfigError(
      `${prefix}${key}`,
      `${JSON.stringify(value)} is out of range`,
      `Use from ${describeMs(min)} to ${describeMs(max)}.`,
    );
  return ms;
}

function describeMs(ms: number): string {
  if (ms === 0) return '0s';
  return ms % 3_600_000 === 0
    ? `${ms / 3_600_000}h`
    : ms % MINUTE === 0
      ? `${ms / MINUTE}m`
      : `${ms / 1000}s`;
}

function readMap(map: JsonObject, key: string): JsonObject {
  const value = map[key];
  if (value === undefined) return {};
  if (!isJsonObject(value))
    throw new NotificationConfigError(
      key,
      'is not a map',
      `Write it as a map, as in docs/notifications.md "Configuration".`,
    );
  return value;
}

function readList(map: JsonObject, key: string, prefix: string, max: number): unknown[] | undefined {
  const value = map[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    throw new NotificationConfigError(`${prefix}${key}`, 'is not a list', 'Write it as a YAML list.');
  if (value.length > max)
    throw new NotificationConfigError(
      `${prefix}${key}`,
      `has ${value.length} items, more than ${max}`,
      `Keep it to at most ${max}.`,
    );
  return value;
}

function readString(map: JsonObject, key: string, prefix: string): string {
  const value = map[key];
  if (typeof value === 'string' && value !== '') return value;
  throw new NotificationConfigError(
    `${prefix}${key}`,
    value === undefined ? 'is missing' : `${JSON.stringify(value)} is not a non-empty string`,
    `Set ${key}.`,
  );
}

function readOneOf<T extends string>(map: JsonObject, key: string, prefix: string, allowed: readonly T[]): T {
  return checkOneOf(map[key] ?? readString(map, key, prefix), `${prefix}${key}`, allowed);
}

function checkOneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  const guess = typeof value === 'string' ? closestName(value, allowed) : undefined;
  throw new NotificationConfigError(
    field,
    `${JSON.stringify(value)} is not one of ${allowed.join(', ')}`,
    guess === undefined ? `Use one of ${allowed.join(', ')}.` : `Did you mean '${guess}'?`,
  );
}

function checkKeys(map: JsonObject, allowed: readonly string[], prefix: string): void {
  for (const key of Object.keys(map)) {
    if (allowed.includes(key)) continue;
    const guess = closestName(key, allowed);
    throw new NotificationConfigError(
      `${prefix}${key}`,
      'is not a known key',
      guess === undefined ? `Use only ${allowed.join(', ')}.` : `Did you mean '${guess}'?`,
    );
  }
}
