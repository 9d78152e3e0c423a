import { KubeApiError, type KubeClient } from '../delivery/kube-client.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import type { Logger } from '../observability/logger.ts';
import { sleep, systemClock, type Clock } from '../core/clock.ts';

/** Where the lease is and how it is held (ADDON_OPERATOR_HA; the settings table in README.md). */
export interface LeaseSettings {
  readonly namespace: string;
  /** addon-operator's lease name, so the two never run as leaders side by side. */
  readonly name: string;
  /** ADDON_OPERATOR_POD, else the host name. */
  readonly identity: string;
  /** How long a lease not renewed stays the holder's: 35 s as addon-operator. */
  readonly leaseDurationMs: number;
  /** How long the leader keeps trying to renew before it gives up leading: 30 s. */
  readonly renewDeadlineMs: number;
  /** How often candidates try to take the lease, and the leader renews it: 10 s. */
  readonly retryPeriodMs: number;
}

export const LEASE_NAME = 'addon-operator-leader-election';

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go's leaderelection does it: a
 * candidate takes the lease when it is free or its holder has not renewed it for a lease duration
 * (timed by this process's clock from when it saw the record change, so clocks need not agree); the
 * leader renews every retry period and stops leading when it could not renew for the renew deadline;
 * `release` hands the lease over at once on a clean stop.
 */
export class LeaderElector {
  readonly #api: Pick<KubeClient, 'request'>;
  readonly #settings: LeaseSettings;
  readonly #logger: Logger;
  #observed: { readonly record: string; readonly at: number } | undefined;
  #holder: string | undefined;
  #leading = false;
  readonly #clock: Clock;
  #renewAbort = new AbortController();
  #cancelDeadline: () => void = () => undefined;
  #cancelRenew: () => void = () => undefined;
  #lostResolve: (() => void) | undefined;
  /** Resolves when this process, having led, could not renew the lease in time. */
  readonly lost: Promise<void>;

  constructor(
    api: Pick<KubeClient, 'request'>,
    settings: LeaseSettings,
    logger: Logger,
    clock: Clock = systemClock,
  ) {
    this.#api = api;
    this.#settings = settings;
    this.#logger = logger;
    this.#clock = clock;
    this.lost = new Promise((resolve) => {
      this.#lostResolve = resolve;
    });
  }

  /** The identity that held the lease when last seen. */
  holder(): string | undefined {
    return this.#holder;
  }

  isLeading(): boolean {
    return this.#leading;
  }

  /** Tries until this process leads (true) or `signal` aborts (false); then renews in the background. */
  async acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      const startedAt = this.#clock.now();
      if (await this.#tryAcquireOrRenew(signal).catch((error: unknown) => this.#failed('take', error))) {
        this.#leading = true;
        this.#holder = this.#settings.identity;
        this.#lead(startedAt);
        return true;
      }
      await sleep(this.#clock, this.#settings.retryPeriodMs, signal);
    }
    return false;
  }

  /** Gives the lease up at once (client-go's ReleaseOnCancel), so a standby takes over in seconds. */
  async release(): Promise<void> {
    this.#cancelRenew();
    this.#cancelDeadline();
    if (!this.#leading) return;
    this.#leading = false;
    this.#renewAbort.abort();
    try {
      const lease = await this.#api.request('GET', this.#path());
      const spec = isJsonObject(lease.spec) ? lease.spec : {};
      if (spec.holderIdentity !== this.#settings.identity) return;
      const now = microTime(this.#clock.now());
      await this.#api.request('PUT', this.#path(), {
        body: {
          ...lease,
          spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
        },
      });
      this.#logger.info('released the leader lease', { lease: this.#settings.name });
    } catch (error: unknown) {
      this.#failed('release', error);
    }
  }

  /**
   * Leading ends at the renew deadline whatever the API server does (docs/lifecycle.md "High
   * availability"): a timer set from the start of the last successful renew ends it, and aborts the
   * renew request in flight, so a stalled connection cannot keep this process leading past the
   * lease that others see expire.
   */
  #lead(renewedAt: number): void {
    this.#renewAbort = new AbortController();
    this.#armDeadline(renewedAt);
    this.#scheduleRenew();
  }

  #armDeadline(renewedAt: number): void {
    this.#cancelDeadline();
    const deadline = renewedAt + this.#settings.renewDeadlineMs;
    this.#cancelDeadline = this.#clock.setTimer(
      () => {
        this.#loseLease();
      },
      Math.max(0, deadline - this.#clock.now()),
    );
  }

  #scheduleRenew(): void {
    this.#cancelRenew = this.#clock.setTimer(() => {
      void this.#renewOnce();
    }, this.#settings.retryPeriodMs);
  }

  /** One renew, bounded by the time left before the deadline. */
  async #renewOnce(): Promise<void> {
    const startedAt = this.#clock.now();
    const signal = this.#renewAbort.signal;
    const renewed = await this.#tryAcquireOrRenew(signal).catch((error: unknown) =>
      this.#failed('renew', error),
    );
    if (!this.#leading) return;
    if (renewed) this.#armDeadline(startedAt);
    this.#scheduleRenew();
  }

  #loseLease(): void {
    if (!this.#leading) return;
    this.#leading = false;
    this.#cancelRenew();
    this.#renewAbort.abort();
    this.#logger.error('lost the leader lease: could not renew it within the renew deadline', {
      lease: this.#settings.name,
      renewDeadlineMs: this.#settings.renewDeadlineMs,
    });
    this.#lostResolve?.();
  }

  /** One round of client-go's tryAcquireOrRenew: true when this process holds the lease after it. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.#clock.now();
    const me = this.#settings.identity;
    let lease: JsonObject;
    try {
      lease = await this.#api.request('GET', this.#path(), { signal });
    } catch (error: unknown) {
      if (!(error instanceof KubeApiError) || error.status !== 404) throw error;
      await this.#api.request('POST', this.#path(false), { body: this.#newLease(now), signal });
      return true;
    }
    const spec = isJsonObject(lease.spec) ? lease.spec : {};
    const holder = typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '';
    const record = JSON.stringify([holder, spec.renewTime, spec.acquireTime]);
    if (this.#observed?.record !== record) this.#observed = { record, at: now };
    this.#holder = holder || undefined;
    const duration = (typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : 15) * 1000;
    if (holder !== '' && holder !== me && this.#observed.at + duration > now) return false;
    const time = microTime(now);
    const transitions = typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : 0;
    const next = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: me,
        leaseDurationSeconds: Math.ceil(this.#settings.leaseDurationMs / 1000),
        acquireTime: holder === me ? spec.acquireTime : time,
        renewTime: time,
        leaseTransitions: holder === me ? transitions : transitions + 1,
      },
    };
    try {
      await this.#api.request('PUT', this.#path(), { body: next, signal });
    } catch (error: unknown) {
      if (error instanceof KubeApiError && error.status === 409) return false;
      throw error;
    }
    if (holder !== me)
      this.#logger.info('took the leader lease', { lease: this.#settings.name, previous: holder });
    return true;
  }

  #newLease(now: number): JsonObject {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.#settings.name, namespace: this.#settings.namespace },
      spec: {
        holderIdentity: this.#settings.identity,
        leaseDurationSeconds: Math.ceil(this.#settings.leaseDurationMs / 1000),
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      },
    };
  }

  #path(named = true): string {
    const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.#settings.namespace)}/leases`;
    return named ? `${base}/${encodeURIComponent(this.#settings.name)}` : base;
  }

  #failed(what: string, error: unknown): false {
    this.#logger.error(`leader lease: could not ${what} it`, {
      lease: this.#settings.name,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}

/** A MicroTime as the API server writes it: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}
