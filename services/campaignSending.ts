import type { OutboundMessage } from '../channels/types';
import { aiValuesFor, ContactForRender, renderText, TextGenerator } from './campaignContent';
import type { CampaignRow } from './campaigns';
import { unsubscribeParts } from './unsubscribe';

/** One contact's message of a campaign: placeholders filled (static and AI), subject and bodies. */
export async function renderCampaignMessage(
  campaign: Pick<CampaignRow, 'channel' | 'subject' | 'content' | 'content_html' | 'template_params' | 'ai_params'>,
  contact: ContactForRender,
  generator: TextGenerator,
  /** The contact's unsubscribe link: email gets the footer (HTML footer in HTML mode) and List-Unsubscribe headers. */
  unsubscribe?: string,
): Promise<Pick<OutboundMessage, 'subject' | 'text' | 'html' | 'headers'>> {
  const ai = await aiValuesFor(generator, campaign.ai_params, contact);
  const render = (text: string | null) => renderText(text, contact, campaign.template_params, ai);
  const footer = campaign.channel === 'email' && unsubscribe ? unsubscribeParts(unsubscribe) : null;
  const html = campaign.channel === 'email' && campaign.content_html ? await render(campaign.content_html) : undefined;
  return {
    subject: campaign.subject ? await render(campaign.subject) : undefined,
    text: (await render(campaign.content)) + (footer?.text ?? ''),
    html: html !== undefined ? html + (footer?.html ?? '') : undefined,
    ...(footer ? { headers: footer.headers } : {}),
  };
}

/** The columns a render reads, selected from `contacts`. */
export const RENDER_COLUMNS = ['name', 'first_name', 'last_name', 'email', 'phone', 'company', 'title', 'location'] as const;
