import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoDuration } from '../core/go-duration.ts';
import { parseCrontab } from './parse-crontab.ts';

describe('parseCrontab (robfig/cron.v2 as shell-operator uses it, docs/hooks.md "schedule")', () => {
  it('reads five fields as a regular crontab and six with seconds first', () => {
    assert.deepEqual(parseCrontab('*/5 * * * *'), {
      ok: true,
      schedule: { kind: 'fields', pattern: '0 */5 * * * *' },
    });
    assert.deepEqual(parseCrontab('*/10 * * * * *'), {
      ok: true,
      schedule: { kind: 'fields', pattern: '*/10 * * * * *' },
    });
    assert.deepEqual(parseCrontab('  0  2 */3 * * '), {
      ok: true,
      schedule: { kind: 'fields', pattern: '0 0 2 */3 * *' },
    });
  });

  it('accepts lists, ranges, steps, ? and month and day names', () => {
    for (const crontab of [
      '0,30 9-17 * * MON-FRI',
      '0 0 1 jan,jul ?',
      '5/15 * * * *',
      '0 0 * * sun',
      '0 12 1-31/2 * *',
    ]) {
      assert.equal(parseCrontab(crontab).ok, true, crontab);
    }
  });

  it('accepts descriptors, @every and a TZ= prefix', () => {
    assert.deepEqual(parseCrontab('@hourly'), {
      ok: true,
      schedule: { kind: 'fields', pattern: '0 0 * * * *' },
    });
    assert.deepEqual(parseCrontab('@weekly'), {
      ok: true,
      schedule: { kind: 'fields', pattern: '0 0 0 * * 0' },
    });
    assert.deepEqual(parseCrontab('@every 1m30s'), {
      ok: true,
      schedule: { kind: 'every', everyMs: 90_000 },
    });
    assert.deepEqual(parseCrontab('@every 200ms'), { ok: true, schedule: { kind: 'every', everyMs: 1000 } });
    assert.deepEqual(parseCrontab('TZ=UTC @daily'), {
      ok: true,
      schedule: { kind: 'fields', pattern: '0 0 0 * * *', timeZone: 'UTC' },
    });
  });

  it('refuses what cron.v2 refuses, saying which field', () => {
    const problems: Record<string, string> = {
      '* * *': 'expected 5 or 6 fields, found 3',
      '* * * * * * *': 'expected 5 or 6 fields, found 7',
      '60 * * * * *': "seconds field '60': 60 is outside 0-59",
      '* 24 * * *': "hours field '24': 24 is outside 0-23",
      '0 0 0 * *': "day of month field '0': 0 is outside 1-31",
      '* * * 13 *': "month field '13': 13 is outside 1-12",
      '* * * * 7': "day of week field '7': 7 is outside 0-6",
      '* * * * funday': "day of week field 'funday': 'funday' is not a number or a name",
      '*/0 * * * *': "minutes field '*/0': the step '0' must be a positive number",
      '5-1 * * * *': "minutes field '5-1': the range '5-1' starts after it ends",
      '1,,2 * * * *': "minutes field '1,,2': an empty list item",
      '@fortnightly': "'@fortnightly' is not a known descriptor",
      '@every soon': "'@every soon' needs a Go duration such as 30s or 1h30m (units ns, us, ms, s, m, h)",
      'TZ=Mars/Olympus * * * * *': "'Mars/Olympus' is not a known time zone",
      'TZ=UTC': 'a TZ= prefix must be followed by a space and the schedule',
    };
    for (const [crontab, problem] of Object.entries(problems)) {
      assert.deepEqual(parseCrontab(crontab), { ok: false, problem }, crontab);
    }
  });
});

describe('parseGoDuration', () => {
  it('reads what time.ParseDuration reads', () => {
    assert.equal(parseGoDuration('3s'), 3000);
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('1.5h'), 5_400_000);
    assert.equal(parseGoDuration('300ms'), 300);
    assert.equal(parseGoDuration('2us'), 0.002);
    assert.equal(parseGoDuration('-1m'), -60_000);
    assert.equal(parseGoDuration('0'), 0);
  });

  it('refuses what time.ParseDuration refuses', () => {
    for (const text of ['', '3', '3 s', '3sec', 's', '.s', '1.2.3s', '+'])
      assert.equal(parseGoDuration(text), undefined, text);
  });
});
