import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeliveryPool } from './delivery-pool.ts';

/** A delivery the test finishes by hand, recording when it started. */
function gate(
  log: string[],
  name: string,
): { deliver: () => Promise<void>; finish: (error?: Error) => void } {
  let finish: (error?: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => {
      if (error) reject(error);
      else resolve();
    };
  });
  return {
    deliver: () => {
      log.push(`start ${name}`);
      return done.then(() => {
        log.push(`end ${name}`);
      });
    },
    finish: (error) => {
      finish(error);
    },
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('DeliveryPool', () => {
  it('runs at most `limit` deliveries at once, the next one as soon as a slot frees', async () => {
    const log: string[] = [];
    const pool = new DeliveryPool(2, () => undefined);
    const [a, b, c] = ['a', 'b', 'c'].map((name) => gate(log, name));
    if (!a || !b || !c) throw new Error('gates');
    pool.start('a', a.deliver);
    pool.start('b', b.deliver);
    pool.start('c', c.deliver);
    await tick();
    assert.deepEqual(log, ['start a', 'start b']);
    b.finish();
    await tick();
    assert.deepEqual(log, ['start a', 'start b', 'end b', 'start c']);
    a.finish();
    c.finish();
    await pool.settle();
    assert.equal(pool.pending('a') || pool.pending('c'), false);
  });

  it('delivers one release in the order asked, never two of it at once', async () => {
    const log: string[] = [];
    const pool = new DeliveryPool(4, () => undefined);
    const first = gate(log, 'first');
    const second = gate(log, 'second');
    pool.start('app', first.deliver);
    const awaited = pool.run('app', second.deliver);
    await tick();
    assert.deepEqual(log, ['start first']);
    assert.equal(pool.pending('app'), true);
    first.finish();
    await tick();
    assert.deepEqual(log, ['start first', 'end first', 'start second']);
    second.finish();
    await awaited;
    await pool.settle('app');
    assert.equal(pool.pending('app'), false);
  });

  it('reports a failed delivery left running, rejects an awaited one, and goes on with the next', async () => {
    const log: string[] = [];
    const failures: string[] = [];
    const pool = new DeliveryPool(1, (release, error) =>
      failures.push(`${release}: ${(error as Error).message}`),
    );
    const broken = gate(log, 'broken');
    const awaited = gate(log, 'awaited');
    const after = gate(log, 'after');
    pool.start('web', broken.deliver);
    const run = pool.run('db', awaited.deliver);
    pool.start('web', after.deliver);
    broken.finish(new Error('helm upgrade failed'));
    await tick();
    awaited.finish(new Error('timed out'));
    await assert.rejects(run, /timed out/);
    after.finish();
    await pool.settle();
    assert.deepEqual(failures, ['web: helm upgrade failed']);
    assert.deepEqual(log, ['start broken', 'start awaited', 'start after', 'end after']);
  });

  it('waits for the releases a delivery needs first (its namespace, its CRDs)', async () => {
    const log: string[] = [];
    const pool = new DeliveryPool(4, () => undefined);
    const namespace = gate(log, 'namespace');
    const app = gate(log, 'app');
    pool.start('platform', namespace.deliver);
    pool.start('app', app.deliver, ['platform', 'not-running']);
    await tick();
    assert.deepEqual(log, ['start namespace']);
    namespace.finish();
    await tick();
    assert.deepEqual(log, ['start namespace', 'end namespace', 'start app']);
    app.finish();
    await pool.settle();
  });

  it('settles at once when nothing runs', async () => {
    const pool = new DeliveryPool(3, () => undefined);
    await pool.settle();
    await pool.settle('none');
    assert.equal(pool.limit, 3);
  });
});
