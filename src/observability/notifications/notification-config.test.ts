import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NotificationConfigError, parseNotificationConfig } from './notification-config.ts';

const SLACK_URL = 'https://hooks.slack.example/services/SECRET-PART';
const SECRET = {
  'slack-url': SLACK_URL,
  'hook-url': 'http://receiver.example:8080/in',
  'hook-hmac': 'key\n',
};

const EXAMPLE = `
channels:
  - name: team-chat
    type: slack
    urlKey: slack-url
    events: [failure, recovery, held-uninstall]
    modules: ["ingress-*", "cert-manager"]
  - name: pager
    type: webhook
    urlKey: hook-url
    secretKey: hook-hmac
groupWindow: 30s
rateLimit: { perMinute: 10 }
retry: { budget: 1h }
`;

/** The error `text` is refused with, as the CLI prints it. */
function refusal(text: string, secret: Record<string, string> = SECRET): string {
  try {
    parseNotificationConfig(text, secret);
  } catch (thrown: unknown) {
    assert.ok(thrown instanceof NotificationConfigError);
    return thrown.describe();
  }
  assert.fail('expected the configuration to be refused');
}

describe('parseNotificationConfig', () => {
  it('reads the documented example, with URLs and keys from the Secret', () => {
    assert.deepEqual(parseNotificationConfig(EXAMPLE, SECRET), {
      channels: [
        {
          name: 'team-chat',
          type: 'slack',
          url: SLACK_URL,
          hmacKey: undefined,
          events: ['failure', 'recovery', 'held-uninstall'],
          modules: ['ingress-*', 'cert-manager'],
        },
        {
          name: 'pager',
          type: 'webhook',
          url: 'http://receiver.example:8080/in',
          hmacKey: 'key',
          events: ['failure', 'recovery', 'held-uninstall', 'maintenance-start', 'maintenance-end'],
          modules: ['*'],
        },
      ],
      groupWindowMs: 30_000,
      perMinute: 10,
      retryBudgetMs: 3_600_000,
    });
  });

  it('takes the defaults for what is left out', () => {
    assert.deepEqual(parseNotificationConfig('', {}), {
      channels: [],
      groupWindowMs: 10_000,
      perMinute: 20,
      retryBudgetMs: 900_000,
    });
  });

  it('names the field and what to fix', () => {
    const cases: [string, string][] = [
      [
        'channels:\n  - { name: a, type: slack, urlKey: slack-url }\n  - { name: b, type: slak, urlKey: slack-url }',
        `notifications: channels[1].type: "slak" is not one of slack, teams, webhook. Did you mean 'slack'?`,
      ],
      [
        'channels:\n  - { name: a, type: slack, urlKey: nope }',
        `notifications: channels[0].urlKey: key 'nope' is missing from Secret 'notifications'. Add the key to Secret 'notifications' or correct urlKey.`,
      ],
      [
        'channels:\n  - { name: a, type: webhook, urlKey: hook-url }',
        `notifications: channels[0].secretKey: is required for a webhook channel. Name the key in Secret 'notifications' that holds the HMAC key the bodies are signed with.`,
      ],
      [
        'channels:\n  - { name: a, type: slack, urlKey: slack-url, event: [failure] }',
        `notifications: channels[0].event: is not a known key. Did you mean 'events'?`,
      ],
      [
        'channels:\n  - { name: a, type: slack, urlKey: slack-url, events: [failures] }',
        `notifications: channels[0].events[0]: "failures" is not one of failure, recovery, held-uninstall, drift-corrected, maintenance-start, maintenance-end, delivery. Did you mean 'failure'?`,
      ],
      [
        'groupWindow: 10 seconds',
        `notifications: groupWindow: "10 seconds" is not a duration. Write a number with a unit (ns, us, ms, s, m, h), like 10s, 5m or 1h.`,
      ],
      ['retry: { budget: 2d }', `notifications: retry.budget: "2d" is not a duration.`],
      [
        'rateLimit: { perMinute: 0 }',
        `notifications: rateLimit.perMinute: 0 is not a whole number from 1 to 600.`,
      ],
      [
        'channels:\n  - { name: a, type: slack, urlKey: slack-url, modules: ["ingress-?"] }',
        'notifications: channels[0].modules[0]: "ingress-?" is not a module name pattern. Use a module name, with `*`',
      ],
      [
        'channels:\n  - { name: Team Chat, type: slack, urlKey: slack-url }',
        'notifications: channels[0].name: "Team Chat" is not a valid channel name. Use lower-case letters',
      ],
      [
        'channels:\n  - { name: a, type: slack, urlKey: slack-url }\n  - { name: a, type: slack, urlKey: slack-url }',
        `notifications: channels[1].name: 'a' is used by an earlier channel.`,
      ],
      ['channels: [\n', 'notifications: line 2: not valid YAML'],
    ];
    for (const [text, expected] of cases) assert.ok(refusal(text).startsWith(expected), refusal(text));
  });

  it('bounds the number of channels', () => {
    const channels = Array.from(
      { length: 21 },
      (_, i) => `  - { name: c${i}, type: slack, urlKey: slack-url }`,
    );
    assert.match(refusal(['channels:', ...channels].join('\n')), /channels: has 21 items, more than 20/);
  });

  it('refuses a URL that is not http(s) or too long, without quoting it', () => {
    const text = 'channels:\n  - { name: a, type: slack, urlKey: u }';
    const notHttp = refusal(text, { u: 'ftp://files.example/SECRET-PART' });
    assert.equal(
      notHttp,
      `notifications: channels[0].urlKey: the value of key 'u' in Secret 'notifications' is not an http:// or https:// URL. Store the webhook URL alone under that key, with no quotes or spaces.`,
    );
    const tooLong = refusal(text, { u: `https://example.com/${'SECRET-PART'.repeat(200)}` });
    assert.match(tooLong, /longer than 2048 characters/);
    assert.ok(!tooLong.includes('SECRET-PART'));
  });
});
