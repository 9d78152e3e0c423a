import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../core/json.ts';
import type { RequestOptions } from '../delivery/kube-client.ts';
import { KubeApiError } from '../delivery/kube-client.ts';
import { createCapturingLogger } from '../observability/logger.ts';
import { ManualClock } from '../../test/queue-test-kit.ts';
import { LeaderElector, type LeaseSettings } from './leader-election.ts';

const SETTINGS: LeaseSettings = {
  namespace: 'kaddon',
  name: 'addon-operator-leader-election',
  identity: 'kaddon-a',
  leaseDurationMs: 35_000,
  renewDeadlineMs: 30_000,
  retryPeriodMs: 10_000,
};

/**
 * A Lease API kept in memory that answers until `stall()`; from then on a request never answers
 * until its signal aborts, as over a connection that stopped forwarding without closing.
 */
function stallableLeaseApi() {
  let lease: JsonObject | undefined;
  let stalled = false;
  const aborted: string[] = [];
  const request = (method: string, path: string, options: RequestOptions = {}): Promise<JsonObject> => {
    if (stalled)
      return new Promise((_resolve, reject) => {
        options.signal?.addEventListener('abort', () => {
          aborted.push(method);
          reject(new KubeApiError(method, path, 0, 'Unreachable', 'aborted'));
        });
      });
    if (method === 'GET') {
      if (lease === undefined) return Promise.reject(new KubeApiError(method, path, 404, 'NotFound', 'none'));
      return Promise.resolve(lease);
    }
    lease = options.body as JsonObject;
    return Promise.resolve(lease);
  };
  return {
    api: { request },
    aborted,
    stall: () => {
      stalled = true;
    },
  };
}

describe('LeaderElector', () => {
  it('stops leading at the renew deadline while a renew request hangs, and aborts that request', async () => {
    const clock = new ManualClock();
    const logger = createCapturingLogger();
    const lease = stallableLeaseApi();
    const elector = new LeaderElector(lease.api, SETTINGS, logger, clock);
    assert.equal(await elector.acquire(new AbortController().signal), true);
    const takenAt = clock.now();
    let lostAt: number | undefined;
    void elector.lost.then(() => (lostAt = clock.now()));

    await clock.advance(SETTINGS.retryPeriodMs);
    assert.equal(elector.isLeading(), true, 'renewed once while the API answered');
    const lastRenewAt = clock.now();
    lease.stall();
    await clock.advance(SETTINGS.retryPeriodMs);
    assert.equal(elector.isLeading(), true, 'a renew hangs; the deadline is not there yet');
    await clock.advance(SETTINGS.renewDeadlineMs);

    assert.equal(elector.isLeading(), false);
    assert.equal(lostAt, lastRenewAt + SETTINGS.renewDeadlineMs, 'lost exactly at the renew deadline');
    assert.ok(lostAt < lastRenewAt + SETTINGS.leaseDurationMs, 'before the lease others see expires');
    assert.ok(takenAt < lastRenewAt);
    assert.deepEqual(lease.aborted, ['GET'], 'the hanging renew request was ended');
    assert.equal(
      logger.entries.filter((entry) => entry.msg.startsWith('lost the leader lease')).length,
      1,
      JSON.stringify(logger.entries),
    );
  });

  it('keeps leading while renews fail quickly within the deadline, then stops at it', async () => {
    const clock = new ManualClock();
    let failing = false;
    let lease: JsonObject | undefined;
    const api = {
      request: (method: string, path: string, options: RequestOptions = {}): Promise<JsonObject> => {
        if (failing) return Promise.reject(new KubeApiError(method, path, 503, 'ServiceUnavailable', 'down'));
        if (method === 'GET')
          return lease === undefined
            ? Promise.reject(new KubeApiError(method, path, 404, 'NotFound', 'none'))
            : Promise.resolve(lease);
        lease = options.body as JsonObject;
        return Promise.resolve(lease);
      },
    };
    const elector = new LeaderElector(api, SETTINGS, createCapturingLogger(), clock);
    await elector.acquire(new AbortController().signal);
    const acquiredAt = clock.now();
    failing = true;
    await clock.advance(SETTINGS.renewDeadlineMs - 1);
    assert.equal(elector.isLeading(), true);
    await clock.advance(1);
    assert.equal(elector.isLeading(), false);
    assert.equal(clock.now(), acquiredAt + SETTINGS.renewDeadlineMs);
  });
});
