import type { FormatMessage } from './formatted-request.ts';
import { JSON_HEADERS } from './formatted-request.ts';
import { describeMessage } from './notification-text.ts';

/**
 * A body for a Teams workflow started by "Post to a channel when a webhook request is received":
 * a message with one Adaptive Card attachment, a title and a fact per module
 * (docs/notifications.md "Microsoft Teams").
 */
export const formatTeamsMessage: FormatMessage = (message) => {
  const { title, lines, more } = describeMessage(message);
  const body = [
    { type: 'TextBlock', text: title, weight: 'Bolder', size: 'Medium', wrap: true },
    { type: 'FactSet', facts: lines.map(({ module, text }) => ({ title: module, value: text })) },
    ...(more > 0 ? [{ type: 'TextBlock', text: `and ${more} more`, isSubtle: true, wrap: true }] : []),
  ];
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body,
  };
  const attachment = {
    contentType: 'application/vnd.microsoft.card.adaptive',
    contentUrl: null,
    content: card,
  };
  return { body: JSON.stringify({ type: 'message', attachments: [attachment] }), headers: JSON_HEADERS };
};
