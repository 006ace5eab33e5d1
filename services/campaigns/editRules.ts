import type { Channel } from '../../channels/types';
import { ruleBroken } from '../platform/errors';
import type { Db } from '../../db/knex';
import { sendingAgent } from '../agents/agents';
import { hasActiveIntegration } from '../agents/integrations';
import type { Principal } from '../identity/principal';
import { HTML_BODY_LIMIT, PLAIN_BODY_LIMIT, placeholdersIn } from './content';

/** The content, placeholder and audience rules of create and update, in the spec's words. */
export async function checkCampaign(
  db: Db,
  teamId: string,
  c: {
    name: string;
    channel: Channel;
    subject: string | null;
    title: string | null;
    content: string;
    contentHtml: string | null;
    templateParams: Record<string, string>;
    aiParams: Record<string, string>;
    agentId: string | null;
    language: string | null;
    category: string | null;
  },
  principal: Principal,
): Promise<void> {
  if (c.content.length > PLAIN_BODY_LIMIT)
    throw ruleBroken('body_too_long', `The plain body is limited to ${PLAIN_BODY_LIMIT} characters`, {
      limit: PLAIN_BODY_LIMIT,
      length: c.content.length,
    });
  if ((c.contentHtml ?? '').length > HTML_BODY_LIMIT)
    throw ruleBroken('body_too_long', `The HTML body is limited to ${HTML_BODY_LIMIT} characters`, {
      limit: HTML_BODY_LIMIT,
      length: c.contentHtml!.length,
    });
  checkChannelFields(c);
  if (!c.content.trim() && !c.contentHtml?.trim()) throw ruleBroken('content_required', 'The campaign has no content');
  const both = Object.keys(c.templateParams).filter((k) => k in c.aiParams);
  if (both.length)
    throw ruleBroken('placeholder_in_both_maps', 'A placeholder is in templateParams or aiParams, never both', {
      placeholders: both,
    });
  if (c.channel === 'whatsapp') checkWhatsappTemplate(c);
  if (Object.keys(c.aiParams).length) {
    const agentId = c.agentId ?? (principal.kind === 'oauth' ? principal.agentId : null);
    if (!agentId || !(await hasActiveIntegration(db, teamId, agentId, c.channel))) {
      throw ruleBroken(
        'ai_params_need_agent',
        `aiParams need an agent with an active ${c.channel} integration on the campaign`,
      );
    }
  }
}

/** The spec's channel table: subject and contentHtml are email's, title push's, language and category WhatsApp's. */
function checkChannelFields(c: {
  channel: Channel;
  subject: string | null;
  title: string | null;
  contentHtml: string | null;
  language: string | null;
  category: string | null;
}): void {
  const details = (field: string) => ({ field, channel: c.channel });
  if (c.channel !== 'email' && c.contentHtml)
    throw ruleBroken('html_email_only', 'contentHtml is for email campaigns only', details('contentHtml'));
  if (c.channel !== 'email' && c.subject)
    throw ruleBroken(
      'subject_not_for_channel',
      `A ${c.channel} message has no subject${c.channel === 'push' ? ' (a push notification takes a title)' : ''}`,
      details('subject'),
    );
  if (c.channel !== 'push' && c.title)
    throw ruleBroken('title_push_only', 'title is for push campaigns only', details('title'));
  if (c.channel !== 'whatsapp' && c.language)
    throw ruleBroken('language_whatsapp_only', 'language is for WhatsApp campaigns only', details('language'));
  if (c.channel !== 'whatsapp' && c.category)
    throw ruleBroken('category_whatsapp_only', 'category is for WhatsApp campaigns only', details('category'));
}

/** What a WhatsApp template must be, on create, on edit and again on submit. */
export function checkWhatsappTemplate(c: {
  name: string;
  content: string;
  templateParams: Record<string, string>;
  aiParams: Record<string, string>;
}): void {
  if (Object.keys(c.aiParams).length)
    throw ruleBroken('whatsapp_ai_params', 'WhatsApp templates take static placeholders only (no aiParams)');
  if (!/^[a-z0-9_]+$/.test(c.name))
    throw ruleBroken(
      'whatsapp_name_not_slug',
      'A WhatsApp template name is lowercase letters, digits and underscores',
      { name: c.name },
    );
  const unmapped = placeholdersIn(c.content).filter((p) => !(p in c.templateParams));
  if (unmapped.length)
    throw ruleBroken(
      'unmapped_placeholder',
      'Every placeholder of a WhatsApp template must be mapped in templateParams',
      { placeholders: unmapped },
    );
}

/** A named agent must be one of the team's, able to send. */
export async function checkAgent(db: Db, teamId: string, agentId: string | null | undefined): Promise<void> {
  if (agentId) await sendingAgent(db, teamId, agentId);
}
