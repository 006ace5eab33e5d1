import { integrationForSend } from '../agents/integrations';
import { updateContact } from '../contacts/contacts';
import { formatUtc } from '../deliveries/approvalPages';
import { sendOneEmail } from '../deliveries/outboundMessages';
import type { AppContext } from '../platform/context';
import type { SecretBox } from '../platform/secretBox';
import { formUrl, type FormRow, type SubmissionRow } from './forms';
import { consentSourceOf, contactOf } from './submit';

/**
 * Double opt-in (docs/FORMS.md): a signed, expiring link by email; its click grants the consent,
 * with the form as source and the click's time.
 */

const PURPOSE = 'form-confirm';

export function confirmationUrl(siteUrl: string, box: SecretBox, formId: string, submissionId: string, expires: Date) {
  const at = String(Math.floor(expires.getTime() / 1000));
  const query = new URLSearchParams({ s: submissionId, expires: at, sig: box.sign(PURPOSE, formId, submissionId, at) });
  return `${formUrl(siteUrl, formId)}/confirm?${query}`;
}

/** The signature covers the expiry, so a changed time is as invalid as a changed id. */
export function checkConfirmationLink(
  box: SecretBox,
  formId: string,
  query: { s?: unknown; expires?: unknown; sig?: unknown },
): { ok: true; submissionId: string } | { ok: false; reason: 'invalid' | 'expired' } {
  const { s, expires, sig } = query;
  if (typeof s !== 'string' || typeof expires !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(expires))
    return { ok: false, reason: 'invalid' };
  if (!box.verify(sig, PURPOSE, formId, s, expires)) return { ok: false, reason: 'invalid' };
  if (Number(expires) * 1000 < Date.now()) return { ok: false, reason: 'expired' };
  return { ok: true, submissionId: s };
}

/**
 * Emails the link through the form's agent's email integration. Runs after the page is answered,
 * so the submitter learns nothing from how long it takes; a failure is logged, the consent stays pending.
 */
export async function sendConfirmation(ctx: AppContext, form: FormRow, submission: SubmissionRow): Promise<void> {
  const log = ctx.logger.child({ formId: form.id, submissionId: submission.id });
  if (!form.agent_id || !submission.contact_id) return void log.warn('form confirmation: no sending agent');
  const integration = await integrationForSend(ctx.db, ctx.secretBox, form.team_id, form.agent_id, 'email');
  if (!integration) return void log.warn('form confirmation: the agent has no active email integration');
  const expires = new Date(Date.now() + ctx.config.FORM_CONFIRMATION_TTL_HOURS * 3_600_000);
  const url = confirmationUrl(ctx.config.siteUrl, ctx.secretBox, form.id, submission.id, expires);
  const team = await ctx.db('teams').where({ id: form.team_id }).first('name');
  const who = team?.name ?? 'us';
  const text =
    `Please confirm that you want to receive news from ${who} (${form.title}):\n\n${url}\n\n` +
    `The link works until ${formatUtc(expires)}. If you did not sign up, ignore this email: nothing will be sent to you.`;
  const escaped = (value: string) => value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  try {
    await sendOneEmail(ctx.db, {
      teamId: form.team_id,
      agentId: form.agent_id,
      contactId: submission.contact_id,
      address: submission.email,
      integration,
      idempotencyKey: `form-confirm:${submission.id}`,
      sourceKind: 'form',
      sourceId: form.id,
      content: {
        subject: 'Please confirm your subscription',
        text,
        html:
          `<p>Please confirm that you want to receive news from ${escaped(who)} (${escaped(form.title)}).</p>` +
          `<p><a href="${escaped(url)}">Confirm my subscription</a></p>` +
          `<p>The link works until ${formatUtc(expires)}. If you did not sign up, ignore this email.</p>`,
      },
    });
    await ctx.db('form_submissions').where({ id: submission.id }).update({ confirmation_sent_at: ctx.db.fn.now() });
  } catch (err) {
    log.error({ err }, 'form confirmation: the email was not sent');
  }
}

export type ConfirmOutcome = 'confirmed' | 'already_confirmed' | 'gone';

/** Grants the consent once (a second click finds it confirmed); a contact granted meanwhile keeps its evidence. */
export async function confirmSubmission(
  ctx: AppContext,
  formId: string,
  submissionId: string,
): Promise<ConfirmOutcome> {
  const row: SubmissionRow | undefined = await ctx
    .db('form_submissions')
    .where({ id: submissionId, form_id: formId })
    .first();
  if (!row?.contact_id) return 'gone';
  if (row.confirmed_at) return 'already_confirmed';
  const contact = await contactOf(ctx.db, row.team_id, row.contact_id);
  if (!contact) return 'gone';
  // The click proves the address is the person's own: an earlier opt-out of theirs is lifted too.
  if (contact.marketingConsent !== 'granted' || contact.optedOut)
    await updateContact(ctx.db, row.team_id, row.contact_id, {
      ...(contact.marketingConsent !== 'granted'
        ? { marketingConsent: 'granted' as const, consentSource: consentSourceOf(formId) }
        : {}),
      ...(contact.optedOut ? { optedOut: false } : {}),
    });
  await ctx
    .db('form_submissions')
    .where({ id: submissionId })
    .whereNull('confirmed_at')
    .update({ consent: 'confirmed', confirmed_at: ctx.db.fn.now() });
  return 'confirmed';
}
