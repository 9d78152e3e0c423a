import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { makeTempTree } from './temp-tree.ts';
import { ParseError } from '../src/core/errors.ts';
import { ValuesError } from '../src/core/values.ts';
import { ConfigFileError, FileConfigStore } from './file-config-store.ts';

const tree = makeTempTree('config-store');
after(() => {
  tree.remove();
});

describe('file config store', () => {
  it('reads a missing file as empty config values', async () => {
    const config = await new FileConfigStore(path.join(tree.root, 'missing.yaml')).load();
    assert.equal(config.global, undefined);
    assert.equal(config.modules.size, 0);
    assert.equal(config.enabled.size, 0);
  });

  it("reads the ConfigMap's data layout: YAML strings or maps, and enabled flags", async () => {
    const dir = tree.write('layout', {
      'config.yaml': 'global: |\n  param1: 200\nsomeModule:\n  param2: FOO\nsomeModuleEnabled: "false"\n',
    });
    const config = await new FileConfigStore(path.join(dir, 'config.yaml')).load();
    assert.deepEqual(config.global, { param1: 200 });
    assert.deepEqual(config.modules.get('someModule'), { param2: 'FOO' });
    assert.equal(config.enabled.get('someModule'), false);
  });

  it('writes a section as a YAML string and keeps other keys and comments', async () => {
    const dir = tree.write('save', {
      'config.yaml': '# managed by kaddon\nglobal: |\n  param1: 200\nsomeModuleEnabled: "true"\n',
    });
    const file = path.join(dir, 'config.yaml');
    const store = new FileConfigStore(file);
    await store.saveSection('someModule', { param1: 'Long string', param3: 'newValue' });
    const text = readFileSync(file, 'utf8');
    assert.equal(
      text,
      '# managed by kaddon\nglobal: |\n  param1: 200\nsomeModuleEnabled: "true"\nsomeModule: |\n  param1: Long string\n  param3: newValue\n',
    );
    assert.deepEqual(parse((parse(text) as Record<string, string>).someModule!), {
      param1: 'Long string',
      param3: 'newValue',
    });
    await store.saveSection('global', { param1: 300 });
    assert.deepEqual((await store.load()).global, { param1: 300 });
    assert.deepEqual(readdirSync(dir), ['config.yaml'], 'no temporary file is left behind');
  });

  it('creates the file when it is missing', async () => {
    const file = path.join(tree.write('create', {}), 'config.yaml');
    await new FileConfigStore(file).saveSection('global', {});
    assert.equal(readFileSync(file, 'utf8'), 'global: |\n  {}\n');
  });

  it('names the file when it does not parse, breaks the layout or cannot be written', async () => {
    const dir = tree.write('bad', {
      'broken.yaml': 'global: [\n',
      'scalar.yaml': 'just text\n',
      'bad-key.yaml': 'some_module: "a: 1"\n',
    });
    const broken = new FileConfigStore(path.join(dir, 'broken.yaml'));
    await assert.rejects(
      broken.load(),
      (error: unknown) => error instanceof ParseError && error.file.endsWith('broken.yaml'),
    );
    await assert.rejects(broken.saveSection('global', {}), ParseError);
    await assert.rejects(new FileConfigStore(path.join(dir, 'bad-key.yaml')).load(), ValuesError);
    await assert.rejects(
      new FileConfigStore(path.join(dir, 'scalar.yaml')).saveSection('global', {}),
      /the file is not a map/,
    );
    await assert.rejects(
      new FileConfigStore(path.join(dir, 'no-such-dir', 'config.yaml')).saveSection('global', {}),
      (error: unknown) => error instanceof ConfigFileError && /cannot be written/.test(error.message),
    );
  });

  it('names the file when it cannot be read', async () => {
    const dir = tree.write('unreadable', {
      'config.yaml/occupied': 'a folder stands where the file should be',
    });
    const store = new FileConfigStore(path.join(dir, 'config.yaml'));
    await assert.rejects(store.load(), /config values '.*config.yaml': cannot be read/);
    await assert.rejects(store.saveSection('global', { a: 2 }), ConfigFileError);
    assert.ok(existsSync(path.join(dir, 'config.yaml', 'occupied')));
  });
});
