import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Who signed in: the name and groups the SubjectAccessReviews ask about (docs/ui.md "Signing in"). */
export interface UiSubject {
  readonly user: string;
  readonly groups: readonly string[];
}

export interface UiSession extends UiSubject {
  /** A random name of this session: logout refuses it from then on. */
  readonly id: string;
  readonly expiresAt: number;
}

export type SessionCheck =
  | { readonly state: 'none' }
  | { readonly state: 'refused'; readonly why: string }
  | { readonly state: 'valid'; readonly session: UiSession };

/**
 * A browser keeps at most about 4 kB per cookie and drops a longer one without a word; a session
 * that would not fit is refused at sign-in instead (a user in hundreds of groups).
 */
export const MAX_COOKIE_VALUE = 3800;
const VERSION = 'v1';

/**
 * Sessions kept in a cookie the server signs (HMAC-SHA256 with `key`): the user, their groups and
 * the expiry, readable by nobody's script (HttpOnly) and checked at each request. A changed byte, a
 * cookie signed with another key or one past its expiry is refused; logout adds the session's id
 * to a list of ended sessions, kept until they would have expired anyway (at most `maxEnded`: a
 * full list refuses every session older than its oldest entry, never accepts an ended one).
 */
export class UiSessions {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #ended = new Map<string, number>();
  readonly #maxEnded: number;
  /** Sessions that expire before this were issued before an ended one was forgotten: all refused. */
  #refusedUntil = 0;
  #sweptAt = 0;

  constructor(options: {
    readonly key: Buffer;
    readonly ttlMs: number;
    readonly now?: () => number;
    readonly maxEnded?: number;
  }) {
    this.#key = options.key;
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
    this.#maxEnded = options.maxEnded ?? 10_000;
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** The cookie value of a new session, or undefined when it is too long to be a cookie. */
  issue(subject: UiSubject): { readonly value: string; readonly session: UiSession } | undefined {
    const session: UiSession = {
      user: subject.user,
      groups: [...subject.groups],
      id: randomBytes(16).toString('base64url'),
      expiresAt: this.#now() + this.#ttlMs,
    };
    const value = this.#seal(
      'session',
      { u: session.user, g: session.groups, i: session.id },
      session.expiresAt,
    );
    return value.length > MAX_COOKIE_VALUE ? undefined : { value, session };
  }

  check(value: string | undefined): SessionCheck {
    if (value === undefined || value === '') return { state: 'none' };
    const opened = this.#open('session', value);
    if (opened === 'expired') return { state: 'refused', why: 'the session has expired: sign in again' };
    const session = opened === undefined ? undefined : asSession(opened);
    if (session === undefined)
      return { state: 'refused', why: 'the session cookie is not one this page made: sign in again' };
    this.#sweep();
    if (this.#ended.has(session.id) || session.expiresAt <= this.#refusedUntil)
      return { state: 'refused', why: 'the session has ended: sign in again' };
    return { state: 'valid', session };
  }

  /** Any other data signed the same way, for `ttlMs`: the sign-in's state, nonce and code verifier. */
  seal(data: object, ttlMs: number): string {
    return this.#seal('flow', data, this.#now() + ttlMs);
  }

  /** What `seal` signed, undefined when it was changed, made for something else, or has expired. */
  open(value: string | undefined): unknown {
    if (value === undefined || value === '') return undefined;
    const opened = this.#open('flow', value);
    return opened === 'expired' ? undefined : opened?.data;
  }

  /** Logout: the session is refused from now on, whoever still holds its cookie. */
  end(session: UiSession): void {
    this.#sweep();
    this.#ended.set(session.id, session.expiresAt);
    for (const [id, expiresAt] of this.#ended) {
      if (this.#ended.size <= this.#maxEnded) break;
      this.#ended.delete(id);
      this.#refusedUntil = Math.max(this.#refusedUntil, expiresAt);
    }
  }

  /** Forgets ended sessions past their expiry, at most once a second: a request costs a look-up. */
  #sweep(): void {
    const now = this.#now();
    if (now - this.#sweptAt < 1000) return;
    this.#sweptAt = now;
    for (const [id, expiresAt] of this.#ended) if (expiresAt <= now) this.#ended.delete(id);
  }

  /** `v1.<payload>.<signature>`; the purpose is signed too, so one kind of cookie never passes as another. */
  #seal(purpose: string, data: object, expiresAt: number): string {
    const payload = Buffer.from(JSON.stringify({ p: purpose, d: data, e: expiresAt })).toString('base64url');
    return `${VERSION}.${payload}.${this.#sign(payload)}`;
  }

  #open(
    purpose: string,
    value: string,
  ): { readonly data: unknown; readonly expiresAt: number } | 'expired' | undefined {
    const [version, payload, signature, ...rest] = value.split('.');
    if (version !== VERSION || payload === undefined || signature === undefined || rest.length > 0)
      return undefined;
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    let sealed: unknown;
    try {
      sealed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof sealed !== 'object' || sealed === null) return undefined;
    const { p, d, e } = sealed as Record<string, unknown>;
    if (p !== purpose || typeof e !== 'number') return undefined;
    return e <= this.#now() ? 'expired' : { data: d, expiresAt: e };
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(`${VERSION}.${payload}`).digest('base64url');
  }
}

function asSession(opened: { readonly data: unknown; readonly expiresAt: number }): UiSession | undefined {
  const data = opened.data;
  if (typeof data !== 'object' || data === null) return undefined;
  const { u, g, i } = data as Record<string, unknown>;
  if (typeof u !== 'string' || typeof i !== 'string') return undefined;
  if (!Array.isArray(g) || !g.every((group): group is string => typeof group === 'string')) return undefined;
  return { user: u, groups: g, id: i, expiresAt: opened.expiresAt };
}

/** The value of the cookie `name` in a Cookie header, undefined when absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
