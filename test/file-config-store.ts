import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isMap, parseDocument, Scalar } from 'yaml';
import { KaddonError } from '../src/core/errors.ts';
import type { JsonValue } from '../src/core/json.ts';
import { EMPTY_CONFIG_VALUES, parseConfigValues, type ConfigValues } from '../src/core/values.ts';
import { parseYamlDocument, stringifyYaml } from '../src/core/yaml/yaml.ts';
import type { ConfigStore } from '../src/runtime/config-store.ts';

/** A config values file that cannot be read or written. */
export class ConfigFileError extends KaddonError {
  readonly code = 'config-file-failed';
  readonly file: string;
  constructor(file: string, problem: string, hint: string, options?: { cause?: unknown }) {
    super(`config values '${file}': ${problem}.`, hint, options);
    this.file = file;
  }
}

/**
 * Config values in a YAML file laid out as the ConfigMap's data (`global`, `<module>`,
 * `<module>Enabled`). Sections written back are YAML strings, as in a ConfigMap; the rest of the
 * file, comments included, is kept. Writes go to a temporary file renamed over the old one, so
 * a reader never sees half a file. A test helper: the values store's tests keep their config values
 * on disk through it, where the operator keeps them in a ConfigMap (src/delivery/configmap-config-store.ts).
 */
export class FileConfigStore implements ConfigStore {
  readonly file: string;

  constructor(file: string) {
    this.file = path.resolve(file);
  }

  async load(): Promise<ConfigValues> {
    const text = await this.#read();
    if (text === undefined) return EMPTY_CONFIG_VALUES;
    return parseConfigValues(parseYamlDocument(text, this.file) ?? null, this.file);
  }

  async saveSection(key: string, section: JsonValue): Promise<void> {
    const text = (await this.#read()) ?? '';
    parseYamlDocument(text, this.file);
    const doc = parseDocument(text, { uniqueKeys: false });
    if (doc.contents !== null && !isMap(doc.contents))
      throw new ConfigFileError(
        this.file,
        'the file is not a map',
        'Write global, <module> and <module>Enabled keys.',
      );
    const value = new Scalar(stringifyYaml(section));
    value.type = 'BLOCK_LITERAL';
    doc.set(key, value);
    await this.#write(doc.toString());
  }

  async #read(): Promise<string | undefined> {
    try {
      return await readFile(this.file, 'utf8');
    } catch (error: unknown) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw new ConfigFileError(this.file, 'cannot be read', 'Check the path and its permissions.', {
        cause: error,
      });
    }
  }

  async #write(text: string): Promise<void> {
    const temp = path.join(
      path.dirname(this.file),
      `.${path.basename(this.file)}.${randomBytes(6).toString('hex')}.tmp`,
    );
    try {
      const handle = await open(temp, 'wx', 0o644);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.file);
    } catch (error: unknown) {
      await unlink(temp).catch(() => undefined);
      throw new ConfigFileError(
        this.file,
        'cannot be written',
        'Check that its folder exists and is writable.',
        {
          cause: error,
        },
      );
    }
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
