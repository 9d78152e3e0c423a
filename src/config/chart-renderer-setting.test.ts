import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { SettingReader } from './setting-reader.ts';
import { resolveChartRenderer } from './chart-renderer-setting.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'kaddon-renderer-setting-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('KADDON_CHART_RENDERER', () => {
  it('helm: always helm template, with nothing to say', () => {
    assert.deepEqual(resolveChartRenderer(new SettingReader({ KADDON_CHART_RENDERER: 'helm' })), {
      binary: undefined,
      notice: undefined,
    });
  });

  it('a path: that binary, made absolute', () => {
    const file = path.join(dir, 'renderer');
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o755);
    const relative = path.relative(process.cwd(), file);
    assert.deepEqual(resolveChartRenderer(new SettingReader({}, { 'chart-renderer': relative })), {
      binary: file,
      notice: undefined,
    });
  });

  it('a path that cannot be run: refused, naming the setting and what to set', () => {
    const plain = path.join(dir, 'plain');
    writeFileSync(plain, 'not a program');
    for (const value of [plain, path.join(dir, 'missing'), dir])
      assert.throws(() => resolveChartRenderer(new SettingReader({ KADDON_CHART_RENDERER: value })), {
        message: `setting 'KADDON_CHART_RENDERER': '${value}' is neither 'native', 'helm' nor an executable file.`,
      });
  });

  it('unset or native: the built renderer when there is one, else helm template and a notice', () => {
    for (const env of [{}, { KADDON_CHART_RENDERER: 'native' }]) {
      const choice = resolveChartRenderer(new SettingReader(env));
      if (choice.binary === undefined) assert.match(choice.notice ?? '', /rendered by `helm template`/);
      else {
        assert.match(choice.binary, /chart-renderer\/bin\/kaddon-chart-renderer$/);
        assert.equal(choice.notice, undefined);
      }
    }
  });
});
