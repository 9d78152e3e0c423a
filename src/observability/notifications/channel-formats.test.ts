import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../../test/queue-test-kit.ts';
import {
  memoryStore,
  NotificationReceiver,
  recordingCounters,
  runFor,
} from '../../../test/observability/notification-receiver.ts';
import { createCapturingLogger } from '../logger.ts';
import { parseNotificationConfig } from './notification-config.ts';
import type { NotificationEvent } from './notification-event.ts';
import { Notifier } from './notifier.ts';

const HMAC_KEY = 'hmac-key-for-tests';
const START = '2026-01-01T00:00:00.000Z';

describe('the bodies each channel type receives', () => {
  let slack: NotificationReceiver;
  let teams: NotificationReceiver;
  let webhook: NotificationReceiver;
  let clock: ManualClock;
  let notifier: Notifier;

  before(async () => {
    [slack, teams, webhook] = await Promise.all([
      NotificationReceiver.start(),
      NotificationReceiver.start(),
      NotificationReceiver.start(),
    ]);
    const config = parseNotificationConfig(
      [
        'channels:',
        '  - { name: chat, type: slack, urlKey: slack-url }',
        '  - { name: teams, type: teams, urlKey: teams-url }',
        '  - { name: hook, type: webhook, urlKey: hook-url, secretKey: hook-hmac }',
      ].join('\n'),
      { 'slack-url': slack.url, 'teams-url': teams.url, 'hook-url': webhook.url, 'hook-hmac': HMAC_KEY },
    );
    clock = new ManualClock();
    notifier = new Notifier({
      config,
      clock,
      logger: createCapturingLogger(),
      counters: recordingCounters(),
      store: memoryStore(),
    });
    await notifier.restored([]);
    const event: NotificationEvent = {
      kind: 'failure',
      module: 'ingress-nginx',
      reason: 'HookFailed',
      message: 'hook <pre> & "x" failed',
      at: clock.now(),
      revision: 'abc123',
    };
    notifier.record(event);
    await runFor(clock, notifier, 10_000);
  });

  after(async () => {
    await notifier.stop();
    await Promise.all([slack.close(), teams.close(), webhook.close()]);
  });

  it('Slack gets Block Kit sections with escaped mrkdwn and a plain fallback', () => {
    const title = 'Module failing: ingress-nginx at revision abc123';
    const line = 'HookFailed: hook &lt;pre&gt; &amp; "x" failed';
    assert.deepEqual(slack.accepted, [
      {
        text: `${title}\n• ingress-nginx: ${line}`,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: `*${title}*` } },
          { type: 'section', text: { type: 'mrkdwn', text: `*ingress-nginx*: ${line}` } },
        ],
      },
    ]);
    assert.equal(slack.requests[0]?.headers['content-type'], 'application/json');
  });

  it('Teams gets a message with one Adaptive Card', () => {
    assert.deepEqual(teams.accepted, [
      {
        type: 'message',
        attachments: [
          {
            contentType: 'application/vnd.microsoft.card.adaptive',
            contentUrl: null,
            content: {
              $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
              type: 'AdaptiveCard',
              version: '1.4',
              body: [
                {
                  type: 'TextBlock',
                  text: 'Module failing: ingress-nginx at revision abc123',
                  weight: 'Bolder',
                  size: 'Medium',
                  wrap: true,
                },
                {
                  type: 'FactSet',
                  facts: [{ title: 'ingress-nginx', value: 'HookFailed: hook <pre> & "x" failed' }],
                },
              ],
            },
          },
        ],
      },
    ]);
  });

  it('the generic webhook gets the event as JSON, signed over the exact body', () => {
    const episode = { since: START, failures: 1 };
    const entry = {
      module: 'ingress-nginx',
      reason: 'HookFailed',
      message: 'hook <pre> & "x" failed',
      at: START,
      episode,
    };
    assert.deepEqual(webhook.accepted, [
      {
        kind: 'failure',
        modules: ['ingress-nginx'],
        reason: 'HookFailed',
        message: 'hook <pre> & "x" failed',
        revision: 'abc123',
        at: START,
        episode,
        entries: [entry],
      },
    ]);
    const [request] = webhook.requests;
    assert.ok(request);
    const expected = `sha256=${createHmac('sha256', HMAC_KEY).update(request.raw).digest('hex')}`;
    assert.equal(request.headers['x-kaddon-signature'], expected);
    assert.equal(request.headers['content-type'], 'application/json');
    assert.match(String(request.headers['x-kaddon-delivery']), /^[0-9a-f-]{36}$/);
  });
});
