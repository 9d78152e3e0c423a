import type { Clock } from '../../core/clock.ts';

export interface CorrectionBackoffTiming {
  /** The wait after the second correction in a row; each further one doubles it. */
  readonly baseMs: number;
  readonly capMs: number;
  /**
   * A correction counts as the same fight when the object drifted again within this long after the
   * earliest moment it could be corrected again.
   */
  readonly windowMs: number;
}

/** docs/drift.md "Another writer": 10 s, 20 s, 40 s, … up to 5 min. */
const CORRECTION_BACKOFF: CorrectionBackoffTiming = {
  baseMs: 10_000,
  capMs: 300_000,
  windowMs: 30_000,
};

/** One object's corrections in a row. */
interface Fight {
  readonly streak: number;
  readonly lastAt: number;
  readonly until: number;
}

/** What a correction started. */
export interface CorrectionOutcome {
  /** How long the object is left as it is before it may be corrected again. */
  readonly delayMs: number;
  /** This correction made it a fight: said once, until the object stays put. */
  readonly startsBackoff: boolean;
}

/**
 * Spaces out the corrections of an object another writer keeps changing back (a controller that
 * fights the release, docs/drift.md "Another writer"), so that drift found from watch events does
 * not become a correction loop: the first correction is immediate, the next ones in a row wait
 * exponentially longer, capped; a quiet spell ends the fight.
 */
export class CorrectionBackoff {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #timing: CorrectionBackoffTiming;
  readonly #fights = new Map<string, Fight>();

  constructor(clock: Pick<Clock, 'now'>, timing: CorrectionBackoffTiming = CORRECTION_BACKOFF) {
    this.#clock = clock;
    this.#timing = timing;
  }

  /** Milliseconds before the object may be corrected again; 0 when it may be now. */
  waitMs(key: string): number {
    const fight = this.#fights.get(key);
    return fight === undefined ? 0 : Math.max(0, fight.until - this.#clock.now());
  }

  /** The object was just put back. */
  corrected(key: string): CorrectionOutcome {
    const now = this.#clock.now();
    const before = this.#fights.get(key);
    const fighting =
      before !== undefined && now - before.lastAt <= this.#delayFor(before.streak) + this.#timing.windowMs;
    const streak = fighting ? before.streak + 1 : 1;
    const delayMs = this.#delayFor(streak);
    this.#fights.set(key, { streak, lastAt: now, until: now + delayMs });
    return { delayMs, startsBackoff: streak === 2 };
  }

  /** Forgets every object whose key starts with `prefix` (a module's, after a delivery). */
  forget(prefix: string): void {
    for (const key of [...this.#fights.keys()]) if (key.startsWith(prefix)) this.#fights.delete(key);
  }

  #delayFor(streak: number): number {
    return streak < 2 ? 0 : Math.min(this.#timing.baseMs * 2 ** (streak - 2), this.#timing.capMs);
  }
}
