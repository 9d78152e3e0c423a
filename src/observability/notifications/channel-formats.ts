import type { ChannelType } from './notification-config.ts';
import type { FormatMessage } from './formatted-request.ts';
import { formatSlackMessage } from './slack-format.ts';
import { formatTeamsMessage } from './teams-format.ts';
import { formatWebhookMessage } from './webhook-format.ts';

/** The body each channel type takes (docs/notifications.md "Channels"). */
export const CHANNEL_FORMATS = {
  slack: formatSlackMessage,
  teams: formatTeamsMessage,
  webhook: formatWebhookMessage,
} as const satisfies Record<ChannelType, FormatMessage>;
