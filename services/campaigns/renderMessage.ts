import type { Channel, OutboundMessage } from '../../channels/types';
import { aiValuesFor, ContactForRender, escapeHtml, renderText, TextGenerator } from './content';
import { unsubscribeParts } from '../contacts/unsubscribe';

/** The columns of a campaign row its messages are rendered from (spelt out here, so rendering needs nothing of campaignRow.ts). */
export interface CampaignContentColumns {
  channel: Channel;
  subject: string | null;
  content: string;
  content_html: string | null;
  template_params: Record<string, string>;
  ai_params: Record<string, string>;
}

export type RenderedMessage = Pick<OutboundMessage, 'subject' | 'text' | 'html' | 'headers'>;

/** One contact's message of a campaign: placeholders filled (static and AI), subject and bodies. */
export async function renderCampaignMessage(
  campaign: CampaignContentColumns,
  contact: ContactForRender,
  generator: TextGenerator,
  /** The contact's unsubscribe link: email gets the footer (HTML footer in HTML mode) and List-Unsubscribe headers. */
  unsubscribe?: string,
): Promise<RenderedMessage> {
  return renderCampaignMessageSoon(campaign, contact, generator, unsubscribe);
}

/**
 * The same, without a promise unless a model writes a placeholder: most campaigns have no AI
 * placeholders, and the bulk send path renders every contact's message.
 */
export function renderCampaignMessageSoon(
  campaign: CampaignContentColumns,
  contact: ContactForRender,
  generator: TextGenerator,
  unsubscribe?: string,
): RenderedMessage | Promise<RenderedMessage> {
  if (!Object.keys(campaign.ai_params).length) return renderWith(campaign, contact, {}, unsubscribe);
  return aiValuesFor(generator, campaign.ai_params, contact).then((ai) =>
    renderWith(campaign, contact, ai, unsubscribe),
  );
}

function renderWith(
  campaign: CampaignContentColumns,
  contact: ContactForRender,
  ai: Record<string, string>,
  unsubscribe: string | undefined,
): RenderedMessage {
  const render = (text: string | null) => renderText(text, contact, campaign.template_params, ai);
  const html =
    campaign.channel === 'email' && campaign.content_html
      ? renderText(campaign.content_html, contact, campaign.template_params, ai, escapeHtml)
      : undefined;
  const footer = campaign.channel === 'email' && unsubscribe ? unsubscribeParts(unsubscribe, html !== undefined) : null;
  return {
    subject: campaign.subject ? render(campaign.subject) : undefined,
    text: render(campaign.content) + (footer?.text ?? ''),
    html: html !== undefined ? withFooter(html, footer?.html ?? '') : undefined,
    ...(footer ? { headers: footer.headers } : {}),
  };
}

/** The footer at the end of the HTML body: before a full document's `</body>`, else after the fragment. */
function withFooter(html: string, footer: string): string {
  const end = html.toLowerCase().lastIndexOf('</body');
  return end === -1 ? html + footer : html.slice(0, end) + footer + html.slice(end);
}

/** The columns a render reads, selected from `contacts`. */
export const RENDER_COLUMNS = [
  'name',
  'first_name',
  'last_name',
  'email',
  'phone',
  'company',
  'title',
  'location',
] as const;
