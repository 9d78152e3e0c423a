import { readFileSync, statSync } from 'node:fs';
import { OperatorConfigError } from './setting-reader.ts';

/** The Git webhook's secret, or the file holding it, with the setting that named it for messages. */
export type GitWebhookSecret =
  { readonly value: string; readonly setting: string } | { readonly file: string; readonly setting: string };

/**
 * The secret now: a file is read at each call, so a rotated Secret is picked up (docs/git-webhook.md
 * "Turning it on"). One trailing newline is dropped. A file that is missing, not a regular file,
 * unreadable, or holds nothing but whitespace is an OperatorConfigError naming the setting: an HMAC
 * keyed with nothing is one anyone can make.
 */
export function readWebhookSecret(
  secret: GitWebhookSecret,
  blank = {
    why: 'an HMAC keyed with nothing is one anyone can make',
    hint: 'Put the secret shared with the Git host there (for example the output of `openssl rand -hex 32`).',
  },
): string {
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
