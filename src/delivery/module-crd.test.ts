import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { MODULE_CRD } from './module-crd.ts';

describe('the Module CRD', () => {
  it('deploy/base/module-crd.yaml is the CRD the operator creates', () => {
    const file = path.resolve(import.meta.dirname, '../../deploy/base/module-crd.yaml');
    assert.deepEqual(parse(readFileSync(file, 'utf8')), MODULE_CRD);
  });
});
