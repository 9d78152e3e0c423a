import type { FormatMessage } from './formatted-request.ts';
import { JSON_HEADERS } from './formatted-request.ts';
import { describeMessage } from './notification-text.ts';

/**
 * A Slack incoming-webhook body: Block Kit `section` blocks with `mrkdwn` text, and `text` as the
 * fallback shown in notifications (docs/notifications.md "Slack").
 */
export const formatSlackMessage: FormatMessage = (message) => {
  const { title, lines, more } = describeMessage(message);
  const texts = [
    `*${escapeSlackText(title)}*`,
    ...lines.map(({ module, text }) => `*${escapeSlackText(module)}*: ${escapeSlackText(text)}`),
    ...(more > 0 ? [`and ${more} more`] : []),
  ];
  const fallback = [
    escapeSlackText(title),
    ...lines.map(({ module, text }) => `• ${escapeSlackText(module)}: ${escapeSlackText(text)}`),
    ...(more > 0 ? [`and ${more} more`] : []),
  ].join('\n');
  const blocks = texts.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } }));
  return { body: JSON.stringify({ text: fallback, blocks }), headers: JSON_HEADERS };
};

/** Slack reads `&`, `<` and `>` as control characters; these three are the ones to escape. */
function escapeSlackText(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
