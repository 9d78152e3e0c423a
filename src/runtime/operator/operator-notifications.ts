import { systemClock } from '../../core/clock.ts';
import { errorMessage } from '../../core/errors.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { KubeApiError, type KubeClient } from '../../delivery/kube-client.ts';
import type { Logger } from '../../observability/logger.ts';
import type { OperatorMetrics } from '../../observability/metrics.ts';
import { parseNotificationConfig } from '../../observability/notifications/notification-config.ts';
import { Notifier, type NotificationStateStore } from '../../observability/notifications/notifier.ts';

export interface NotificationSettings {
  readonly namespace: string;
  /** KADDON_NOTIFICATIONS_CONFIG_MAP: the routing, under its `notifications` key. */
  readonly configMap: string;
  /** KADDON_NOTIFICATIONS_SECRET: the URLs and HMAC keys the routing names. */
  readonly secret: string;
}

/** The key of the routing ConfigMap that holds it, and of the state ConfigMap. */
const ROUTING_KEY = 'notifications';
const STATE_KEY = 'state';

/**
 * The Notifier, when the routing ConfigMap exists (docs/notifications.md "Configuration"); none
 * otherwise: notifications are quiet by default. A routing the parser refuses is logged with what
 * to fix and leaves notifications off: a bad configuration never stops the operator.
 */
export async function startNotifications(
  api: Pick<KubeClient, 'request'>,
  settings: NotificationSettings,
  logger: Logger,
  metrics: OperatorMetrics,
): Promise<Notifier | undefined> {
  const log = logger.child({ component: 'notifications' });
  const routing = await readObject(api, configMapPath(settings.namespace, settings.configMap));
  const text = isJsonObject(routing?.data) ? routing.data[ROUTING_KEY] : undefined;
  if (typeof text !== 'string') {
    log.debug('notifications are off: no routing', { configMap: settings.configMap });
    return undefined;
  }
  try {
    const secret = await readObject(
      api,
      `/api/v1/namespaces/${settings.namespace}/secrets/${settings.secret}`,
    );
    const config = parseNotificationConfig(text, secretData(secret), settings.secret);
    log.info('notifications on', { channels: config.channels.map((channel) => channel.name).join(',') });
    return new Notifier({
      config,
      clock: systemClock,
      logger: log,
      counters: {
        sent: (channel) => {
          metrics.notificationSent(channel);
        },
        failed: (channel, reason) => {
          metrics.notificationFailed(channel, reason);
        },
      },
      store: configMapStore(api, settings.namespace, `${settings.configMap}-state`, log),
    });
  } catch (error: unknown) {
    log.error(
      `notifications are off: ConfigMap ${settings.namespace}/${settings.configMap} key ${ROUTING_KEY}: ${errorMessage(error)}`,
    );
    return undefined;
  }
}

function configMapPath(namespace: string, name: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${encodeURIComponent(name)}`;
}

async function readObject(api: Pick<KubeClient, 'request'>, path: string): Promise<JsonObject | undefined> {
  try {
    return await api.request('GET', path);
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** A Secret's data, decoded; none when there is no Secret (the parser names the keys it misses). */
function secretData(secret: JsonObject | undefined): Record<string, string> {
  const data = isJsonObject(secret?.data) ? secret.data : {};
  const decoded: Record<string, string> = {};
  for (const [key, value] of Object.entries(data))
    if (typeof value === 'string') decoded[key] = Buffer.from(value, 'base64').toString('utf8');
  return decoded;
}

/**
 * The open episodes, kept in a ConfigMap of their own beside the routing (docs/notifications.md
 * "Restarts"), so that a restart does not announce again what was announced.
 */
function configMapStore(
  api: Pick<KubeClient, 'request'>,
  namespace: string,
  name: string,
  logger: Logger,
): NotificationStateStore {
  const path = configMapPath(namespace, name);
  return {
    load: async () => {
      const object = await readObject(api, path).catch((error: unknown) => {
        logger.warn('the notification state was not read: a restart may announce again', {
          error: errorMessage(error),
        });
        return undefined;
      });
      const text = isJsonObject(object?.data) ? object.data[STATE_KEY] : undefined;
      if (typeof text !== 'string') return undefined;
      try {
        const state: unknown = JSON.parse(text);
        return isJsonObject(state) ? state : undefined;
      } catch {
        return undefined;
      }
    },
    save: async (state) => {
      const body = { data: { [STATE_KEY]: JSON.stringify(state) } };
      try {
        await api.request('PATCH', path, { body, contentType: 'application/merge-patch+json' });
      } catch (error: unknown) {
        if (!(error instanceof KubeApiError && error.status === 404)) throw error;
        await api.request('POST', `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps`, {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...body },
        });
      }
    },
  };
}
