import type { Db } from '../../db/knex';
import type { SecretBox } from '../platform/secretBox';

/** A contact's own unsubscribe link: signed, never expiring (an old email's link must still work). */
export function unsubscribeUrl(baseUrl: string, box: SecretBox, contactId: string): string {
  return `${baseUrl}/unsubscribe/${contactId}?sig=${box.sign('unsubscribe', contactId)}`;
}

export const verifyUnsubscribe = (box: SecretBox, contactId: string, sig: unknown) =>
  typeof sig === 'string' && box.verify(sig, 'unsubscribe', contactId);

/** Opts the contact out of marketing (idempotent); false for an unknown contact. */
export async function optOut(db: Db, contactId: string): Promise<boolean> {
  return (
    (await db('contacts')
      .where({ id: contactId })
      .update({ opted_out_at: db.raw('coalesce(opted_out_at, now())'), updated_at: db.fn.now() })) === 1
  );
}

/**
 * The footer and the RFC 2369 / RFC 8058 headers of a marketing email; the HTML footer only for a
 * message that has an HTML body (a bulk send writes one of these a recipient).
 */
export function unsubscribeParts(url: string, withHtml: boolean) {
  return {
    text: `\n\n--\nYou receive this because you are a contact of ours. Unsubscribe: ${url}`,
    html: withHtml
      ? `<p style="font-size:12px;color:#666;margin-top:24px">You receive this because you are a contact of ours. <a href="${url}">Unsubscribe</a></p>`
      : '',
    headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}

/** Whose unsubscribe a signed link is, in words for its page: the address and the team that sends to it (null: the contact is gone). */
export async function unsubscribeTarget(
  db: Db,
  contactId: string,
): Promise<{ address: string | null; teamName: string; optedOut: boolean } | null> {
  const row = await db('contacts')
    .join('teams', 'teams.id', 'contacts.team_id')
    .where('contacts.id', contactId)
    .first('contacts.email', 'contacts.opted_out_at', 'teams.name as team_name');
  return row ? { address: row.email, teamName: row.team_name, optedOut: row.opted_out_at !== null } : null;
}
