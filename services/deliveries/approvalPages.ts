import { z } from 'zod';
import { audiencePreviewSchema, previewCampaignAudience } from '../campaigns/audiencePreview';
import type { AppContext } from '../platform/context';
import { useApprovalLink } from './executionApproval';
import { ExecutionRow, getExecution } from './warpExecutions';
import type { ExecutionStatus } from './deliveryTypes';
import { AppError } from '../platform/errors';
import { sensitiveWrites, SensitiveWarp, warpArgsSchema } from '../catalog/sensitiveWrites';

/**
 * What the signed approval page shows a person before they decide, and the words for every state
 * an execution can be in. Everything the page needs is read here, so the route only renders.
 */

export interface ApprovalFact {
  label: string;
  value: string;
}

export interface ApprovalView {
  /** `delivery` for artifact delivery, `request` for the other sensitive writes. */
  noun: 'delivery' | 'request';
  /** The question on the page: "Approve this delivery?", "Send the campaign “November news”?". */
  question: string;
  /** One sentence: who asks for what. */
  summary: string;
  facts: ApprovalFact[];
  recipients: { name: string | null; address: string }[];
  /** A delivery's text as drafted (message, then the artifacts' links), exactly what is sent. */
  message: { subject: string | null; body: string } | null;
  approveLabel: string;
  expiresAt: Date | null;
  /** Null while the link can still decide; else what happened, in words. */
  decided: { heading: string; sentence: string } | null;
}

const CHANNEL_NAMES: Record<string, string> = {
  email: 'Email',
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  push: 'Push notification',
};
export const channelName = (channel: string) => CHANNEL_NAMES[channel] ?? channel;

/** "Saturday 30 November 2024 at 12:38 UTC": absolute, so a reader in any zone can place it. */
export function formatUtc(date: Date): string {
  return `${new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(date)} at ${date.toISOString().slice(11, 16)} UTC`;
}

/** "in 6 days", "in 3 hours", "in 12 minutes", "2 days ago": the largest whole unit, rounded down. */
export function relativeTime(date: Date, now = new Date()): string {
  const ms = date.getTime() - now.getTime();
  const abs = Math.abs(ms);
  const units: [string, number][] = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ];
  const [unit, size] = units.find(([, size]) => abs >= size) ?? ['minute', 60_000];
  const n = Math.floor(abs / size);
  if (n === 0) return ms >= 0 ? 'in less than a minute' : 'less than a minute ago';
  const amount = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return ms >= 0 ? `in ${amount}` : `${amount} ago`;
}

interface DeliveryStoredInput {
  integration: string;
  artifactIds: string[];
  message: string;
  subject?: string;
  recipients: { contactId: string; address: string }[];
}

/** What a signed link decides: a delivery, an agent's permission (its runtime acts, not the platform), or another request. */
export type LinkKind = 'delivery' | 'permission' | 'request';
export const linkKindOf = (warp: string): LinkKind =>
  warp === 'artifact-deliver' ? 'delivery' : warp === 'agent-permission' ? 'permission' : 'request';

const STATE_WORDS: Record<LinkKind, { noun: string; approved: string; done: string; doing: string; nothing: string }> =
  {
    delivery: {
      noun: 'delivery',
      approved: 'Approved and sent',
      done: 'sent',
      doing: 'is being sent',
      nothing: 'Nothing was sent.',
    },
    request: {
      noun: 'request',
      approved: 'Approved and done',
      done: 'carried out',
      doing: 'is being carried out',
      nothing: 'Nothing was changed.',
    },
    permission: {
      noun: 'request',
      approved: 'Approved',
      done: 'passed on: the agent may go ahead',
      doing: 'is being passed on to the agent',
      nothing: 'The agent was told not to go ahead.',
    },
  };

/** What happened to an execution the link can no longer decide, in words a person reads (never the raw status). */
export function decidedWords(
  kind: LinkKind,
  row: Pick<ExecutionRow, 'status' | 'error' | 'approval_expires_at' | 'approval_link_used_at' | 'updated_at'>,
): { heading: string; sentence: string } | null {
  const words = STATE_WORDS[kind];
  const noun = words.noun;
  switch (row.status) {
    case 'pending_approval':
      return row.approval_link_used_at
        ? {
            heading: 'This link was already used',
            sentence: `A decision was already made with this link and is being carried out.`,
          }
        : null;
    case 'running':
      return { heading: 'Already approved', sentence: `This ${noun} was approved and ${words.doing}.` };
    case 'succeeded':
      return { heading: 'Already approved', sentence: `This ${noun} was already approved and ${words.done}.` };
    case 'declined':
      return { heading: 'Declined', sentence: `This ${noun} was declined. ${words.nothing}` };
    case 'expired':
      return {
        heading: 'Expired',
        sentence: `This ${noun} expired on ${formatUtc(row.approval_expires_at ?? row.updated_at)} without being approved. ${words.nothing}`,
      };
    case 'failed':
      return {
        heading: 'Not completed',
        sentence: `This ${noun} could not be completed${row.error?.error.message ? `: ${row.error.error.message}` : ''}.`,
      };
  }
}

async function nameOf(
  ctx: AppContext,
  table: 'campaigns' | 'artifacts' | 'segments' | 'media',
  column: string,
  teamId: string,
  id: string,
): Promise<string | null> {
  const row = await ctx.db(table).where({ team_id: teamId, id }).first(column);
  return row ? String(row[column]) : null;
}

const quoted = (name: string | null, id: string) => (name === null ? `${id} (no longer exists)` : `“${name}”`);

/** A sensitive write in the words of the person approving it. */
async function describeRequest(
  ctx: AppContext,
  row: ExecutionRow,
): Promise<Pick<ApprovalView, 'question' | 'facts' | 'approveLabel'> & { what: string }> {
  const warp = row.warp as SensitiveWarp;
  if (!(warp in sensitiveWrites))
    return { question: 'Approve this request?', what: `run ${row.warp}`, facts: [], approveLabel: 'Approve' };
  const parsed = warpArgsSchema(warp).safeParse(row.input);
  if (!parsed.success)
    return { question: 'Approve this request?', what: `run ${row.warp}`, facts: [], approveLabel: 'Approve' };
  const args = parsed.data as Record<string, string | undefined>;
  switch (warp) {
    case 'svc-campaign-send': {
      const campaign = await ctx
        .db('campaigns')
        .where({ team_id: row.team_id, id: args.campaignId })
        .first('name', 'channel', 'subject', 'scheduled_at');
      const facts: ApprovalFact[] = [];
      if (campaign) {
        facts.push({ label: 'Channel', value: channelName(campaign.channel) });
        const audience = await previewCampaignAudience(
          ctx.db,
          row.team_id,
          audiencePreviewSchema.parse({ campaignId: args.campaignId }),
        ).catch(() => null);
        if (audience)
          facts.push({
            label: 'Audience',
            value: `${audience.sendable} of ${audience.total} contacts can receive it now`,
          });
        const heading = campaign.channel === 'push' ? 'Title' : 'Subject'; // a push title is stored as subject
        if (campaign.subject) facts.push({ label: heading, value: campaign.subject });
      }
      // Without a time of its own, the send is due at the campaign's (campaigns/send.ts).
      const due = new Date((args.scheduledAt === undefined ? campaign?.scheduled_at : args.scheduledAt) ?? 0);
      facts.push({ label: 'When', value: due.getTime() > Date.now() ? formatUtc(due) : 'As soon as you approve' });
      const name = quoted(campaign?.name ?? null, args.campaignId!);
      return {
        question: `Send the campaign ${name}?`,
        what: `send the campaign ${name}`,
        facts,
        approveLabel: 'Approve and send',
      };
    }
    case 'svc-campaign-delete': {
      const name = quoted(await nameOf(ctx, 'campaigns', 'name', row.team_id, args.campaignId!), args.campaignId!);
      return {
        question: `Delete the campaign ${name}?`,
        what: `delete the campaign ${name}`,
        facts: [],
        approveLabel: 'Approve and delete',
      };
    }
    case 'artifact-delete': {
      const name = quoted(await nameOf(ctx, 'artifacts', 'title', row.team_id, args.artifactId!), args.artifactId!);
      return {
        question: `Delete the artifact ${name}?`,
        what: `delete the artifact ${name}`,
        facts: [],
        approveLabel: 'Approve and delete',
      };
    }
    case 'segment-delete': {
      const name = quoted(await nameOf(ctx, 'segments', 'name', row.team_id, args.segmentId!), args.segmentId!);
      return {
        question: `Delete the segment ${name}?`,
        what: `delete the segment ${name}`,
        facts: [],
        approveLabel: 'Approve and delete',
      };
    }
    case 'media-delete': {
      const name = quoted(await nameOf(ctx, 'media', 'filename', row.team_id, args.mediaId!), args.mediaId!);
      return {
        question: `Delete the file ${name}?`,
        what: `delete the file ${name}`,
        facts: [],
        approveLabel: 'Approve and delete',
      };
    }
    case 'agent-permission':
      return {
        question: `Let the agent use ${args.tool}?`,
        what: `use ${args.tool} in its runtime`,
        facts: [
          { label: 'Tool', value: String(args.tool) },
          ...(row.input && typeof row.input === 'object' && 'input' in row.input
            ? [{ label: 'Input', value: JSON.stringify((row.input as { input: unknown }).input).slice(0, 2000) }]
            : []),
        ],
        approveLabel: 'Approve',
      };
    case 'secret-clear':
      return {
        question: `Clear the secret ${args.key}?`,
        what: `clear its secret ${args.key}`,
        facts: [],
        approveLabel: 'Approve and clear',
      };
  }
}

/** Everything the approval page shows for an execution a valid link names. */
export async function approvalView(ctx: AppContext, row: ExecutionRow): Promise<ApprovalView> {
  const [agent, team] = await Promise.all([
    row.agent_id ? ctx.db('agents').where({ id: row.agent_id }).first('name') : null,
    ctx.db('teams').where({ id: row.team_id }).first('name'),
  ]);
  const agentName = agent?.name ?? 'An agent that no longer exists';
  const teamName: string = team?.name ?? '';
  const expiresAt = row.approval_expires_at;
  const expiryFact = expiresAt
    ? [
        {
          label: 'Approval expires',
          value: `${formatUtc(expiresAt)} (${relativeTime(expiresAt).replace(/^in /, 'expires in ').replace(/ ago$/, ' ago')})`,
        },
      ]
    : [];
  const from = { label: 'From', value: `${agentName} (agent of team ${teamName})` };

  if (row.warp === 'artifact-deliver') {
    const input = row.input as unknown as DeliveryStoredInput;
    const contactIds = input.recipients.map((r) => r.contactId);
    const [contacts, artifacts] = await Promise.all([
      ctx
        .db('contacts')
        .where({ team_id: row.team_id })
        .whereIn('id', contactIds)
        .select('id', 'name', 'first_name', 'last_name'),
      ctx
        .db('artifacts')
        .where({ team_id: row.team_id })
        .whereIn('id', input.artifactIds)
        .select('id', 'title', 'type'),
    ]);
    const recipients = input.recipients.map((r) => {
      const contact = contacts.find((c) => c.id === r.contactId);
      const name = contact
        ? contact.name || [contact.first_name, contact.last_name].filter(Boolean).join(' ') || null
        : null;
      return { name, address: r.address };
    });
    const artifactList = input.artifactIds
      .map((id) => artifacts.find((a) => a.id === id))
      .filter(Boolean)
      .map((a) => `${a.title} (${a.type})`)
      .join(', ');
    const channel = channelName(input.integration);
    const draft = row.draft;
    return {
      noun: 'delivery',
      question: 'Approve this delivery?',
      summary: `${agentName} of team ${teamName} wants to send this message by ${channel} to ${recipients.length === 1 ? '1 recipient' : `${recipients.length} recipients`}.`,
      facts: [
        { label: 'Channel', value: channel },
        from,
        ...(artifactList
          ? [{ label: input.artifactIds.length === 1 ? 'Artifact' : 'Artifacts', value: artifactList }]
          : []),
        ...expiryFact,
      ],
      recipients,
      // Before the workflow drafts it, the request's own text is what there is to read.
      message: {
        subject: draft ? (draft.subject ?? null) : (input.subject ?? null),
        body: draft ? (draft.links ? `${draft.message}\n\n${draft.links}` : draft.message) : input.message,
      },
      approveLabel: 'Approve and send',
      expiresAt,
      decided: decidedWords('delivery', row),
    };
  }

  const request = await describeRequest(ctx, row);
  return {
    noun: 'request',
    question: request.question,
    summary: `${agentName} of team ${teamName} asks to ${request.what}.`,
    facts: [...request.facts, from, ...expiryFact],
    recipients: [],
    message: null,
    approveLabel: request.approveLabel,
    expiresAt,
    decided: decidedWords(linkKindOf(row.warp), row),
  };
}

/** What a decision by link led to, for the page after the POST. */
export interface LinkDecisionOutcome {
  heading: string;
  sentence: string;
  /** False when the decision was made but the work failed: the page is then no success. */
  ok: boolean;
}

/**
 * Decides with a signed link (once; a used link is 409), then waits briefly for the execution to
 * settle, so the page can say "sent" rather than "being sent" for the usual quick delivery.
 */
export async function decideWithLink(
  ctx: AppContext,
  row: ExecutionRow,
  decision: 'approve' | 'decline',
): Promise<LinkDecisionOutcome> {
  let execution = await useApprovalLink(ctx, row, decision);
  for (let waited = 0; execution.status === 'running' && waited < 5000; waited += 200) {
    await new Promise((r) => setTimeout(r, 200));
    execution = await getExecution(ctx, row.team_id, row.id);
  }
  return outcomeWords(linkKindOf(row.warp), decision, execution.status, execution.error?.error.message);
}

function outcomeWords(
  kind: LinkKind,
  decision: 'approve' | 'decline',
  status: ExecutionStatus,
  errorMessage?: string,
): LinkDecisionOutcome {
  const words = STATE_WORDS[kind];
  const noun = words.noun;
  if (decision === 'decline' || status === 'declined')
    return { heading: 'Declined', sentence: `You declined this ${noun}. ${words.nothing}`, ok: true };
  if (status === 'succeeded')
    return {
      heading: words.approved,
      sentence: `You approved this ${noun}; it was ${words.done}.`,
      ok: true,
    };
  if (status === 'failed')
    return {
      heading: 'Approved, but it failed',
      sentence: `You approved this ${noun}, but it could not be completed${errorMessage ? `: ${errorMessage}` : ''}.`,
      ok: false,
    };
  return {
    heading: 'Approved',
    sentence: `You approved this ${noun}; it ${words.doing}.`,
    ok: true,
  };
}

export const linkDecisionSchema = z.object({ decision: z.enum(['approve', 'decline']) });
/** The form's decision, or a 400 that says what is expected. */
export function parseLinkDecision(body: unknown): 'approve' | 'decline' {
  const parsed = linkDecisionSchema.safeParse(body ?? {});
  if (!parsed.success) throw new AppError('validation_error', 'decision must be approve or decline');
  return parsed.data.decision;
}
