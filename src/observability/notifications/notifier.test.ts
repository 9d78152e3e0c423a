import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
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
import { Notifier, type NotificationStateStore } from './notifier.ts';

const MINUTE = 60_000;

interface SlackBody {
  readonly text: string;
  readonly blocks: readonly { readonly text: { readonly text: string } }[];
}

interface WebhookBody {
  readonly kind: string;
  readonly modules: readonly string[];
  readonly failing?: readonly { readonly module: string }[];
  readonly recovered?: readonly {
    readonly module: string;
    readonly episode: { readonly downSeconds: number };
  }[];
}

describe('Notifier', () => {
  let chat: NotificationReceiver;
  let hook: NotificationReceiver;
  let clock: ManualClock;
  let notifiers: Notifier[];

  beforeEach(async () => {
    [chat, hook] = await Promise.all([NotificationReceiver.start(), NotificationReceiver.start()]);
    clock = new ManualClock();
    notifiers = [];
  });

  afterEach(async () => {
    for (const notifier of notifiers) await notifier.stop();
    await Promise.all([chat.close(), hook.close()]);
  });

  function startNotifier(
    store: NotificationStateStore = memoryStore(),
    channelLines: string[] = [],
  ): Notifier {
    const config = parseNotificationConfig(
      [
        'channels:',
        '  - { name: chat, type: slack, urlKey: chat-url }',
        '  - { name: hook, type: webhook, urlKey: hook-url, secretKey: hook-hmac }',
        ...channelLines,
      ].join('\n'),
      { 'chat-url': chat.url, 'hook-url': hook.url, 'hook-hmac': 'k' },
    );
    const notifier = new Notifier({
      config,
      clock,
      logger: createCapturingLogger(),
      counters: recordingCounters(),
      store,
    });
    notifiers.push(notifier);
    return notifier;
  }

  function event(kind: NotificationEvent['kind'], module: string, revision?: string): NotificationEvent {
    return { kind, module, reason: 'HookFailed', message: 'exit status 1', at: clock.now(), revision };
  }

  it('turns a 10-minute incident of 20 failures into one failure and one recovery message', async () => {
    const notifier = startNotifier();
    await notifier.restored([{ module: 'cert-manager', failing: false, reason: '', message: '' }]);
    for (let attempt = 0; attempt < 20; attempt += 1) {
      notifier.record(event('failure', 'cert-manager'));
      await runFor(clock, notifier, MINUTE / 2);
    }
    notifier.record(event('recovery', 'cert-manager'));
    await runFor(clock, notifier, MINUTE);

    const texts = (chat.accepted as SlackBody[]).map(({ text }) => text);
    assert.deepEqual(texts, [
      'Module failing: cert-manager\n• cert-manager: HookFailed: exit status 1',
      'Module recovered: cert-manager\n• cert-manager: recovered after 10m, 20 failed attempts',
    ]);
    assert.deepEqual(
      (hook.accepted as WebhookBody[]).map(({ kind }) => kind),
      ['failure', 'recovery'],
    );
  });

  it('sends a recovery only for a module it announced as failing', async () => {
    const notifier = startNotifier();
    await notifier.restored([]);
    notifier.record(event('recovery', 'cert-manager'));
    await runFor(clock, notifier, MINUTE);
    assert.deepEqual(chat.accepted, []);
  });

  it('names 30 modules failing on one revision in one message', async () => {
    const notifier = startNotifier();
    await notifier.restored([]);
    const modules = Array.from({ length: 30 }, (_, i) => `module-${String(i + 1).padStart(2, '0')}`);
    for (const module of modules) {
      notifier.record(event('failure', module, 'f00dcafe'));
      await runFor(clock, notifier, 250, 250);
    }
    await runFor(clock, notifier, MINUTE);

    const [slackBody, ...otherSlack] = chat.accepted as SlackBody[];
    assert.deepEqual(otherSlack, []);
    assert.equal(slackBody?.blocks[0]?.text.text, '*30 modules failing at revision f00dcafe*');
    const listed = slackBody.blocks.slice(1, -1).map(({ text }) => /^\*([^*]+)\*/.exec(text.text)?.[1]);
    assert.deepEqual(listed, modules.slice(0, 20));
    assert.equal(slackBody.blocks.at(-1)?.text.text, 'and 10 more');
    const [webhookBody, ...otherHooks] = hook.accepted as WebhookBody[];
    assert.deepEqual(otherHooks, []);
    assert.deepEqual(webhookBody?.modules, modules);
  });

  it('keeps failures of different revisions in separate messages', async () => {
    const notifier = startNotifier();
    await notifier.restored([]);
    notifier.record(event('failure', 'a', 'rev-1'));
    notifier.record(event('failure', 'b', 'rev-2'));
    await runFor(clock, notifier, MINUTE);
    assert.deepEqual(
      (hook.accepted as WebhookBody[]).map(({ modules }) => modules),
      [['a'], ['b']],
    );
  });

  it('sends a channel only the events and modules it asks for', async () => {
    const notifier = startNotifier(memoryStore(), [
      '  - { name: ingress, type: slack, urlKey: chat-url, events: [delivery], modules: ["ingress-*"] }',
    ]);
    await notifier.restored([]);
    notifier.record(event('delivery', 'ingress-nginx'));
    notifier.record(event('delivery', 'cert-manager'));
    await runFor(clock, notifier, MINUTE);
    // The chat channel takes the quiet default, which leaves deliveries out.
    assert.deepEqual(
      (chat.accepted as SlackBody[]).map(({ text }) => text),
      ['Module delivered: ingress-nginx\n• ingress-nginx: HookFailed: exit status 1'],
    );
    assert.deepEqual(
      (hook.accepted as WebhookBody[]).map(({ modules }) => modules),
      [],
    );
  });

  describe('after a restart', () => {
    async function runBeforeRestart(store: NotificationStateStore): Promise<void> {
      const first = startNotifier(store);
      await first.restored([]);
      first.record(event('failure', 'announced-a'));
      first.record(event('failure', 'announced-b'));
      await runFor(clock, first, MINUTE);
      await first.stop();
      chat.requests.length = 0;
      hook.requests.length = 0;
      await runFor(clock, first, 30 * MINUTE, MINUTE);
    }

    it('sends one summary: new failures and recoveries while down, not failures already announced', async () => {
      const store = memoryStore();
      await runBeforeRestart(store);
      const second = startNotifier(store);
      // The first pass reports again what it finds; the summary stands for it.
      second.record(event('failure', 'announced-a'));
      second.record(event('failure', 'new-failure'));
      await second.restored([
        { module: 'announced-a', failing: true, reason: 'HookFailed', message: 'exit status 1' },
        { module: 'announced-b', failing: false, reason: 'Ready', message: '' },
        { module: 'new-failure', failing: true, reason: 'ValuesInvalid', message: 'replicas: must be >= 1' },
        { module: 'always-fine', failing: false, reason: 'Ready', message: '' },
      ]);
      await runFor(clock, second, MINUTE);

      assert.deepEqual(
        (chat.accepted as SlackBody[]).map(({ text }) => text),
        [
          [
            'kaddon restarted: 1 failing, 1 recovered while it was down',
            '• new-failure: failing: ValuesInvalid: replicas: must be &gt;= 1',
            '• announced-b: recovered after 31m, 1 failed attempt',
          ].join('\n'),
        ],
      );
      const [summary, ...others] = hook.accepted as WebhookBody[];
      assert.deepEqual(others, []);
      assert.equal(summary?.kind, 'summary');
      assert.deepEqual(
        summary.failing?.map(({ module }) => module),
        ['new-failure'],
      );
      assert.deepEqual(
        summary.recovered?.map(({ module, episode }) => [module, episode.downSeconds]),
        [['announced-b', 31 * 60]],
      );
    });

    it('sends nothing when nothing is new, and announces a later recovery as usual', async () => {
      const store = memoryStore();
      await runBeforeRestart(store);
      const second = startNotifier(store);
      await second.restored([
        { module: 'announced-a', failing: true, reason: 'HookFailed', message: 'exit status 1' },
        { module: 'announced-b', failing: true, reason: 'HookFailed', message: 'exit status 1' },
      ]);
      await runFor(clock, second, MINUTE);
      assert.deepEqual(chat.accepted, []);

      second.record(event('recovery', 'announced-a'));
      await runFor(clock, second, MINUTE);
      assert.deepEqual(
        (chat.accepted as SlackBody[]).map(({ text }) => text),
        ['Module recovered: announced-a\n• announced-a: recovered after 32m, 1 failed attempt'],
      );
    });
  });
});
