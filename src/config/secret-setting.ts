import { readFileSync, statSync } from 'node:fs';
import type { SettingKey } from '../core/setting-names.ts';
import { OperatorConfigError, type FoundSetting, type SettingReader } from './setting-reader.ts';

/** What a blank secret is refused with: why it cannot be used, and what to put there. */
export interface BlankSecret {
  readonly why: string;
  readonly hint: string;
}

/**
 * A secret setting (the Git webhook's, the status page sign-in's): its value, or the file holding
 * it (a mounted Secret), with the setting that named it for messages.
 */
export type SecretSetting =
  { readonly value: string; readonly setting: string } | { readonly file: string; readonly setting: string };

/** The Git webhook's secret keys an HMAC (docs/git-webhook.md). */
export const WEBHOOK_BLANK: BlankSecret = {
  why: 'an HMAC keyed with nothing is one anyone can make',
  hint: 'Put the secret shared with the Git host there (for example the output of `openssl rand -hex 32`).',
};

/**
 * A secret given by one of two settings, its value or a file (`KADDON_GIT_WEBHOOK_SECRET` or
 * `_FILE`), read once now so a missing file or a blank secret stops the start; undefined when
 * neither is set. Both set is an error.
 */
export function findSecretSetting(
  read: SettingReader,
  valueKey: SettingKey,
  fileKey: SettingKey,
  blank: BlankSecret,
  /** Checks of the other settings it needs, before the secret is read (the webhook's Git source). */
  needs?: (found: FoundSetting) => void,
): SecretSetting | undefined {
  const value = read.find(valueKey);
  const file = read.find(fileKey);
  if (value !== undefined && file !== undefined)
    throw new OperatorConfigError(file.name, `is set together with ${value.name}`, 'Set one of the two.');
  const found = value ?? file;
  if (found !== undefined) needs?.(found);
  const secret: SecretSetting | undefined =
    file !== undefined
      ? { file: file.value, setting: file.name }
      : value !== undefined
        ? { value: value.value, setting: value.name }
        : undefined;
  if (secret !== undefined) readSecretSetting(secret, blank);
  return secret;
}

/**
 * The secret now: a file is read at each call, so a rotated Secret is picked up (docs/git-webhook.md
 * "Turning it on"). One trailing newline is dropped. A file that is missing, not a regular file,
 * unreadable, or holds nothing but whitespace is an OperatorConfigError naming the setting and why
 * (by default the webhook's: an HMAC keyed with nothing is one anyone can make).
 */
export function readSecretSetting(secret: SecretSetting, blank: BlankSecret = WEBHOOK_BLANK): string {
  const text = 'value' in secret ? secret.value : readSecretFile(secret.setting, secret.file);
  if (text.trim() === '') {
    const what = 'value' in secret ? 'is blank' : `the file '${secret.file}' is empty or blank`;
    throw new OperatorConfigError(secret.setting, `${what}: ${blank.why}`, blank.hint);
  }
  return text;
}

function readSecretFile(setting: string, file: string): string {
  const refuse = (problem: string): OperatorConfigError =>
    new OperatorConfigError(setting, problem, 'Mount the secret there or correct the path.');
  let text: string;
  try {
    const stats = statSync(file);
    if (stats.isDirectory()) throw refuse(`'${file}' is a directory, not a file`);
    if (!stats.isFile()) throw refuse(`'${file}' is not a regular file`);
    text = readFileSync(file, 'utf8');
  } catch (error: unknown) {
    if (error instanceof OperatorConfigError) throw error;
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown error';
    throw refuse(
      code === 'ENOENT' ? `the file '${file}' does not exist` : `the file '${file}' cannot be read (${code})`,
    );
  }
  return text.replace(/\r?\n$/u, '');
}
