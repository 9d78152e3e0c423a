import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cookieValue, MAX_COOKIE_VALUE, UiSessions } from './ui-session.ts';

const key = Buffer.alloc(32, 7);

describe('UiSessions', () => {
  it('gives back the user and groups of a cookie it signed, until it expires', () => {
    let now = 1_000_000;
    const sessions = new UiSessions({ key, ttlMs: 60_000, now: () => now });
    const issued = sessions.issue({ user: 'ann', groups: ['admins', 'ops'] });
    assert.ok(issued);
    const checked = sessions.check(issued.value);
    assert.ok(checked.state === 'valid');
    assert.deepEqual([checked.session.user, checked.session.groups], ['ann', ['admins', 'ops']]);
    now += 60_000;
    assert.deepEqual(sessions.check(issued.value), {
      state: 'refused',
      why: 'the session has expired: sign in again',
    });
  });

  it('refuses a cookie changed anywhere, signed with another key, or made for the sign-in flow', () => {
    const sessions = new UiSessions({ key, ttlMs: 60_000 });
    const other = new UiSessions({ key: Buffer.alloc(32, 8), ttlMs: 60_000 });
    const value = sessions.issue({ user: 'bob', groups: [] })?.value ?? '';
    for (let at = 0; at < value.length; at += 7) {
      const changed = `${value.slice(0, at)}${value[at] === 'A' ? 'B' : 'A'}${value.slice(at + 1)}`;
      assert.equal(sessions.check(changed).state, 'refused', `a change at ${String(at)}`);
    }
    assert.equal(other.check(value).state, 'refused');
    assert.equal(sessions.check(sessions.seal({ u: 'bob', g: [], i: 'x' }, 60_000)).state, 'refused');
    assert.equal(sessions.open(value), undefined);
    assert.equal(sessions.check(undefined).state, 'none');
  });

  it('refuses a session once ended, and every older one when the list of ended sessions is full', () => {
    let now = 0;
    const sessions = new UiSessions({ key, ttlMs: 10_000, now: () => now, maxEnded: 2 });
    const issue = (): string => sessions.issue({ user: 'ann', groups: [] })?.value ?? '';
    const first = issue();
    now = 1;
    const second = issue();
    const end = (value: string): void => {
      const checked = sessions.check(value);
      assert.ok(checked.state === 'valid');
      sessions.end(checked.session);
    };
    end(second);
    assert.deepEqual(sessions.check(second), {
      state: 'refused',
      why: 'the session has ended: sign in again',
    });
    assert.equal(sessions.check(first).state, 'valid');
    now = 2;
    const third = issue();
    now = 3;
    const fourth = issue();
    end(third);
    end(fourth);
    // The oldest ended one was forgotten: every session expiring no later than it is refused.
    assert.equal(sessions.check(second).state, 'refused');
    assert.equal(sessions.check(first).state, 'refused');
    now = 4;
    assert.equal(sessions.check(issue()).state, 'valid');
  });

  it('will not make a cookie a browser would drop', () => {
    const sessions = new UiSessions({ key, ttlMs: 60_000 });
    const groups = Array.from({ length: 400 }, (_, index) => `group-number-${String(index)}`);
    assert.equal(sessions.issue({ user: 'ann', groups }), undefined);
    assert.ok(
      (sessions.issue({ user: 'ann', groups: groups.slice(0, 40) })?.value.length ?? 0) < MAX_COOKIE_VALUE,
    );
  });

  it('reads one cookie out of a Cookie header', () => {
    assert.equal(cookieValue('a=1; kaddon-ui-session=v1.x.y; b=2', 'kaddon-ui-session'), 'v1.x.y');
    assert.equal(cookieValue('a=1', 'kaddon-ui-session'), undefined);
    assert.equal(cookieValue(undefined, 'a'), undefined);
  });
});
