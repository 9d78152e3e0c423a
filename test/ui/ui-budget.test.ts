import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { buildUi } from '../../scripts/build-ui.mjs';

/** The status page's JavaScript budget (docs/performance.md "Status page"). */
const MAX_MINIFIED_BYTES = 20_000;
const MAX_GZIPPED_BYTES = 10_000;

describe("the status page's size", () => {
  it('keeps its JavaScript within the budget, minified and gzipped', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'kaddon-ui-budget-'));
    try {
      await buildUi(out);
      const script = readFileSync(path.join(out, 'app.js'));
      assert.ok(script.length <= MAX_MINIFIED_BYTES, `app.js is ${String(script.length)} bytes`);
      const gzipped = gzipSync(script, { level: 9 }).length;
      assert.ok(gzipped <= MAX_GZIPPED_BYTES, `app.js is ${String(gzipped)} bytes gzipped`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
