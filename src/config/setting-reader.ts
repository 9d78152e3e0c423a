import { KaddonError } from '../core/errors.ts';
import { isTooLongForTimer, parseGoDuration, TOO_LONG_HINT, tooLongProblem } from '../core/go-duration.ts';
import { SETTINGS, type SettingKey } from '../core/setting-names.ts';

/** A setting with a value that cannot be used, naming the variable or flag to fix. */
export class OperatorConfigError extends KaddonError {
  readonly code = 'config-invalid';
  constructor(setting: string, problem: string, hint: string) {
    super(`setting '${setting}': ${problem}.`, hint);
  }
}

export type SettingSource = Readonly<Record<string, string | undefined>>;

/** A setting's value and the flag (`--name`) or variable it was found under, for messages. */
export interface FoundSetting {
  readonly name: string;
  readonly value: string;
}

/**
 * Reads settings through the one table (core/setting-names.ts): the command-line flag first, then
 * the first of the setting's variables that is set and not empty, then the default. Each reader
 * checks the value and names the flag or variable to fix.
 */
export class SettingReader {
  readonly #env: SettingSource;
  readonly #flags: SettingSource;

  constructor(env: SettingSource, flags: SettingSource = {}) {
    this.#env = env;
    this.#flags = flags;
  }

  find(key: SettingKey): FoundSetting | undefined {
    const { flag, env } = SETTINGS[key];
    const fromFlag = this.#flags[flag];
    if (fromFlag !== undefined) return { name: `--${flag}`, value: fromFlag };
    for (const name of env) {
      const value = this.#env[name];
      if (value !== undefined && value !== '') return { name, value };
    }
    return undefined;
  }

  text(key: SettingKey, fallback: string): string {
    return this.find(key)?.value ?? fallback;
  }

  /** A whole number, 0 or more. */
  int(key: SettingKey, fallback: number): number {
    const found = this.find(key);
    if (!found) return fallback;
    const value = Number(found.value);
    if (!Number.isInteger(value) || value < 0)
      throw new OperatorConfigError(
        found.name,
        `'${found.value}' is not a whole number`,
        `Set ${found.name} to a number such as ${fallback}.`,
      );
    return value;
  }

  /** A whole number from 0 to 100, or `off` (100). */
  percent(key: SettingKey, fallback: number): number {
    const found = this.find(key);
    if (!found) return fallback;
    if (found.value.toLowerCase() === 'off') return 100;
    const value = Number(found.value.replace(/%$/u, ''));
    if (!Number.isInteger(value) || value < 0 || value > 100)
      throw new OperatorConfigError(
        found.name,
        `'${found.value}' is not a percentage from 0 to 100, or off`,
        `Set ${found.name} to a whole number such as ${String(fallback)}, or to off.`,
      );
    return value;
  }

  bool(key: SettingKey, fallback: boolean): boolean {
    const found = this.find(key);
    if (!found) return fallback;
    if (/^(true|yes|1)$/i.test(found.value)) return true;
    if (/^(false|no|0)$/i.test(found.value)) return false;
    throw new OperatorConfigError(
      found.name,
      `'${found.value}' is not true or false`,
      `Set ${found.name} to true or false.`,
    );
  }

  /** One of `allowed`, in any case. */
  choice<T extends string>(key: SettingKey, allowed: readonly T[], fallback: T): T {
    const found = this.find(key);
    if (!found) return fallback;
    const value = found.value.toLowerCase();
    if (!(allowed as readonly string[]).includes(value))
      throw new OperatorConfigError(
        found.name,
        `'${found.value}' is not one of ${allowed.join(', ')}`,
        `Set ${found.name} to one of ${allowed.join(', ')}.`,
      );
    return value as T;
  }

  /** Requests per second, 0 or more. */
  rate(key: SettingKey, fallback: number): number {
    const found = this.find(key);
    if (!found) return fallback;
    const value = Number(found.value);
    if (!Number.isFinite(value) || value < 0)
      throw new OperatorConfigError(
        found.name,
        `'${found.value}' is not a rate`,
        `Set ${found.name} to requests per second such as ${fallback}.`,
      );
    return value;
  }

  /** A Go duration (`2s`, `5m`, `4m30s`) above zero, in milliseconds. */
  durationMs(key: SettingKey, fallback: number): number {
    return positiveDurationMs(this.find(key), fallback);
  }

  /** A Go duration (`20m`, `90s`, `1h30m`) or a number of seconds, in seconds. */
  seconds(key: SettingKey, fallback: number): number {
    const found = this.find(key);
    if (!found) return fallback;
    if (/^\d+$/.test(found.value)) return checkTimerBound(found, Number(found.value) * 1000) / 1000;
    const parts = [...found.value.matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g)];
    const consumed = parts.map((part) => part[0]).join('');
    if (parts.length === 0 || consumed !== found.value)
      throw new OperatorConfigError(
        found.name,
        `'${found.value}' is not a duration`,
        'Write it like 20m, 90s or 1h30m.',
      );
    const unit = { h: 3600, m: 60, s: 1 } as const;
    const seconds = parts.reduce(
      (sum, part) => sum + Number(part[1]) * unit[part[2] as keyof typeof unit],
      0,
    );
    return checkTimerBound(found, seconds * 1000) / 1000;
  }

  /** A TCP port, 1 to 65535. */
  port(key: SettingKey, fallback: number): number {
    const found = this.find(key);
    if (!found) return fallback;
    const value = Number(found.value);
    if (!Number.isInteger(value) || value < 1 || value > 65535)
      throw new OperatorConfigError(
        found.name,
        `'${found.value}' is not a port`,
        'Use a port number from 1 to 65535.',
      );
    return value;
  }
}

/** A Go duration as MODULES_GIT_POLL_INTERVAL takes it (`2s`, `5m`, `4m30s`), above zero. */
function positiveDurationMs(found: FoundSetting | undefined, fallback: number): number {
  if (!found) return fallback;
  const ms = parseGoDuration(found.value);
  if (ms === undefined || ms <= 0)
    throw new OperatorConfigError(
      found.name,
      `'${found.value}' is not a positive duration`,
      'Write it like 30s, 5m or 4m30s.',
    );
  return checkTimerBound(found, ms);
}

/** Every duration setting is bounded by what a timer holds (docs/lifecycle.md "Bounds and timeouts"). */
function checkTimerBound(found: FoundSetting, ms: number): number {
  if (isTooLongForTimer(ms))
    throw new OperatorConfigError(found.name, tooLongProblem(found.value), TOO_LONG_HINT);
  return ms;
}
