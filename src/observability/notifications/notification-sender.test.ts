import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ManualClock } from '../../../test/queue-test-kit.ts';
import {
  memoryStore,
  NotificationReceiver,
  recordingCounters,
  runFor,
  URL_TOKEN,
} from '../../../test/observability/notification-receiver.ts';
import { createCapturingLogger, type CapturingLogger } from '../logger.ts';
import { parseNotificationConfig } from './notification-config.ts';
import { redactUrl } from './notification-response.ts';
import { Notifier } from './notifier.ts';

const MINUTE = 60_000;

interface WebhookBody {
  readonly modules: readonly string[];
}

describe('sending to a channel', () => {
  let receiver: NotificationReceiver;
  let clock: ManualClock;
  let logger: CapturingLogger;
  let counters: ReturnType<typeof recordingCounters>;
  let notifier: Notifier | undefined;

  beforeEach(async () => {
    receiver = await NotificationReceiver.start();
    clock = new ManualClock();
    logger = createCapturingLogger();
    counters = recordingCounters();
  });

  afterEach(async () => {
    await notifier?.stop();
    await receiver.close();
  });

  async function startNotifier(url: string, settings: string[] = []): Promise<Notifier> {
    const config = parseNotificationConfig(
      [
        'channels:',
        '  - { name: hook, type: webhook, urlKey: url, secretKey: hmac, events: [delivery] }',
        ...settings,
      ].join('\n'),
      { url, hmac: 'k' },
    );
    notifier = new Notifier({ config, clock, logger, counters, store: memoryStore() });
    await notifier.restored([]);
    return notifier;
  }

  /** One message per module: a delivery, each after the previous one's group window closed. */
  async function deliver(running: Notifier, modules: readonly string[]): Promise<void> {
    for (const module of modules) {
      running.record({ kind: 'delivery', module, reason: 'Delivered', message: '', at: clock.now() });
      await runFor(clock, running, 15_000);
    }
  }

  function acceptedModules(): (readonly string[])[] {
    return (receiver.accepted as WebhookBody[]).map(({ modules }) => modules);
  }

  it('delivers every message once, in order, through five minutes of 503', async () => {
    const recoversAt = clock.now() + 5 * MINUTE;
    receiver.answer = () => ({ status: clock.now() < recoversAt ? 503 : 200 });
    const running = await startNotifier(receiver.url, ['rateLimit: { perMinute: 2 }']);
    await deliver(running, ['first', 'second', 'third']);
    await runFor(clock, running, 10 * MINUTE);

    assert.deepEqual(acceptedModules(), [['first'], ['second'], ['third']]);
    const accepted = receiver.requests.filter(({ status }) => status < 300);
    const ids = accepted.map(({ headers }) => headers['x-kaddon-delivery']);
    assert.equal(new Set(ids).size, 3);
    for (const request of receiver.requests) {
      const sameId = accepted.find(
        ({ headers }) => headers['x-kaddon-delivery'] === request.headers['x-kaddon-delivery'],
      );
      assert.deepEqual(request.raw, sameId?.raw, 'a retry sends the same body under the same delivery id');
    }
    assert.equal(counters.calls.filter((call) => call === 'sent:hook').length, 3);
    assert.ok(counters.calls.includes('failed:hook:http'));
    assert.ok(!counters.calls.some((call) => call.endsWith(':budget')));
  });

  it('drops a message when the receiver is down longer than the retry budget, and counts it', async () => {
    const recoversAt = clock.now() + 5 * MINUTE;
    receiver.answer = () => ({ status: clock.now() < recoversAt ? 503 : 200 });
    const running = await startNotifier(receiver.url, ['retry: { budget: 2m }']);
    await deliver(running, ['lost']);
    await runFor(clock, running, 4 * MINUTE);
    await deliver(running, ['after-the-outage']);
    await runFor(clock, running, 5 * MINUTE);

    assert.deepEqual(acceptedModules(), [['after-the-outage']]);
    assert.deepEqual(
      counters.calls.filter((call) => !call.endsWith(':http')),
      ['failed:hook:budget', 'sent:hook'],
    );
    assert.ok(logger.entries.some(({ level, fields }) => level === 'error' && fields.channel === 'hook'));
  });

  it('waits as a 429 answer says and then delivers once', async () => {
    receiver.answer = ({ index }) =>
      index === 0 ? { status: 429, headers: { 'Retry-After': '30' } } : { status: 200 };
    const running = await startNotifier(receiver.url);
    await deliver(running, ['throttled']);
    await runFor(clock, running, MINUTE);
    assert.deepEqual(acceptedModules(), [['throttled']]);
    assert.deepEqual(
      receiver.requests.map(({ status }) => status),
      [429, 200],
    );
  });

  it('does not retry a message the receiver refuses, and goes on with the next', async () => {
    receiver.answer = ({ index }) => ({ status: index === 0 ? 400 : 200 });
    const running = await startNotifier(receiver.url);
    await deliver(running, ['refused', 'next']);
    await runFor(clock, running, 5 * MINUTE);
    assert.deepEqual(
      receiver.requests.map(({ status }) => status),
      [400, 200],
    );
    assert.deepEqual(acceptedModules(), [['next']]);
    assert.deepEqual(counters.calls, ['failed:hook:rejected', 'sent:hook']);
  });

  it('never logs or counts the URL, whatever fails', async () => {
    const closed = await NotificationReceiver.start();
    const unreachable = closed.url;
    await closed.close();
    receiver.answer = ({ index }) => ({ status: index < 2 ? 502 : 404 });
    const config = parseNotificationConfig(
      [
        'channels:',
        '  - { name: down, type: slack, urlKey: down-url }',
        '  - { name: flaky, type: teams, urlKey: flaky-url }',
        'retry: { budget: 1m }',
      ].join('\n'),
      { 'down-url': unreachable, 'flaky-url': receiver.url },
    );
    notifier = new Notifier({ config, clock, logger, counters, store: memoryStore() });
    await notifier.restored([]);
    notifier.record({ kind: 'failure', module: 'm', reason: 'HookFailed', message: '', at: clock.now() });
    await runFor(clock, notifier, 3 * MINUTE);

    assert.ok(counters.calls.includes('failed:down:network'));
    assert.ok(counters.calls.includes('failed:down:budget'));
    assert.ok(counters.calls.includes('failed:flaky:rejected'));
    const logged = JSON.stringify(logger.entries);
    assert.ok(logged.includes('ECONNREFUSED'), 'the reason is logged');
    assert.ok(!logged.includes(URL_TOKEN), logged);
    assert.ok(!logged.includes(unreachable));
    assert.ok(!counters.calls.join().includes(URL_TOKEN));
  });

  it('redacts the URL and its parts from an error text', () => {
    const url = `https://hooks.example.com/services/${URL_TOKEN}?k=v`;
    const text = `request to ${url} failed; host hooks.example.com path /services/${URL_TOKEN}`;
    const redacted = redactUrl(text, url);
    assert.ok(!redacted.includes(URL_TOKEN));
    assert.ok(!redacted.includes('hooks.example.com'));
  });
});
