import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { makeTempTree } from '../../test/temp-tree.ts';
import { ParseError } from '../core/errors.ts';
import { ValuesSchemaError, ValuesValidationError } from '../core/values-schema.ts';
import { loadModulesTree } from './modules-tree.ts';
import { loadTreeSchemas, readValuesSchemaFiles } from './values-schemas.ts';

const tree = makeTempTree('values-schemas');
after(() => {
  tree.remove();
});

describe('values schema files', () => {
  it('reads global schemas from $GLOBAL_HOOKS_DIR/openapi and module schemas from <module>/openapi', () => {
    const globalHooks = tree.write('global-hooks', {
      'openapi/config-values.yaml': 'type: object\nproperties:\n  project: {type: string}\n',
      'openapi/values.yaml':
        'x-extend: {schema: config-values.yaml}\ntype: object\nx-required-for-helm: [project]\n',
    });
    const modules = tree.write('modules', {
      'values.yaml': 'echoServerEnabled: true\n',
      '010-echo-server/openapi/values.yaml': 'type: object\nproperties:\n  replicas: {type: integer}\n',
      '020-no-schema/values.yaml': 'noSchema: {}\n',
    });
    const schemas = loadTreeSchemas(loadModulesTree([modules]), globalHooks);
    assert.equal(schemas.global.has('config'), true);
    assert.equal(schemas.global.has('helm'), true);
    assert.throws(() => {
      schemas.global.validate('values', { project: 1 });
    }, /global\.project must be string/);
    assert.throws(() => {
      schemas.global.validate('helm', {});
    }, /must have required property 'project'/);
    const echo = schemas.modules.get('echo-server')!;
    assert.equal(echo.has('config'), false);
    assert.throws(
      () => {
        echo.validate('values', { replicas: 'x' });
      },
      (error: unknown) =>
        error instanceof ValuesValidationError &&
        error.message.includes(path.join(modules, '010-echo-server/openapi/values.yaml')) &&
        error.message.includes('echoServer.replicas must be integer'),
    );
    const none = schemas.modules.get('no-schema')!;
    assert.equal(none.has('config') || none.has('values'), false);
  });

  it('treats a missing global hooks dir, missing files and empty files as no schema', () => {
    const dir = tree.write('empty-files', {
      'openapi/config-values.yaml': '',
      'openapi/values.yaml': '# nothing yet\n',
    });
    assert.deepEqual(readValuesSchemaFiles(path.join(dir, 'openapi')), {});
    assert.deepEqual(readValuesSchemaFiles(path.join(dir, 'absent')), {});
    const modules = tree.write('modules-only', { 'a/values.yaml': 'a: {}\n' });
    assert.equal(loadTreeSchemas(loadModulesTree([modules]), undefined).global.has('values'), false);
  });

  it('names the file and line of a schema that does not parse or is not a schema', () => {
    const broken = tree.write('broken', { 'openapi/values.yaml': 'type: object\nproperties: [\n' });
    assert.throws(
      () => readValuesSchemaFiles(path.join(broken, 'openapi')),
      (error: unknown) =>
        error instanceof ParseError &&
        error.file === path.join(broken, 'openapi/values.yaml') &&
        error.line !== undefined,
    );
    const modules = tree.write('bad-module', { '010-echo-server/openapi/config-values.yaml': 'type: 7\n' });
    assert.throws(
      () => loadTreeSchemas(loadModulesTree([modules]), undefined),
      (error: unknown) =>
        error instanceof ValuesSchemaError &&
        error.message.startsWith(
          `module 'echo-server': ${path.join(modules, '010-echo-server/openapi/config-values.yaml')}: invalid schema`,
        ),
    );
  });
});
