import { z } from 'zod';
import type { AppContext, TeamRef } from '../platform/context';
import { invalidState, ruleBroken } from '../platform/errors';
import { sendableStates } from './stateTable';
import { hasActiveIntegration } from '../agents/integrations';
import { checkAudience, resolveAudience } from './audience';
import { campaignAgent, CampaignRow, findCampaign, presentCampaign } from './campaignRow';
import type { CampaignJson } from './schemas';
import { startRun } from './workflowRun';

export const campaignSendSchema = z.strictObject({
  scheduledAt: z.iso
    .datetime({ offset: true })
    .nullable()
    .optional()
    .describe("ISO 8601; omitted: the campaign's own scheduledAt; null: now. A past time sends now"),
});

/**
 * Send now, or at a future `scheduledAt` (a durable timer in the campaign's workflow): the one
 * given here, else the campaign's own (the spec: a send with no or a past scheduledAt is Sending).
 * `approvedBy`: the approved warp execution that already covers this send (no approval cards).
 */
export async function sendCampaign(
  ctx: AppContext,
  team: TeamRef,
  campaignId: string,
  input: z.infer<typeof campaignSendSchema>,
  approvedBy: string | null = null,
): Promise<CampaignJson> {
  const { db } = ctx;
  // The checks read without a lock (an audience count can take a while); the claim below only
  // succeeds if the campaign is still as read, so of two concurrent sends one wins (and an edit that lost its Draft to a send is refused).
  const current = await findCampaign(db, team.id, campaignId);
  const due = input.scheduledAt === undefined ? current.scheduled_at : input.scheduledAt && new Date(input.scheduledAt);
  const scheduledAt = due && due.getTime() > Date.now() ? due : null;
  if (current.archived_at) throw invalidState('Unarchive the campaign before sending it');
  const sendable = sendableStates(current.channel);
  if (!sendable.includes(current.status)) {
    throw current.channel === 'whatsapp' && ['draft', 'pending', 'rejected'].includes(current.status)
      ? ruleBroken('whatsapp_not_approved', 'A WhatsApp campaign is sent only once its template is Approved', {
          status: current.status,
        })
      : invalidState(`A ${current.status} campaign cannot be sent`, { status: current.status });
  }
  await checkAudience(
    db,
    team.id,
    current.channel,
    await resolveAudience(db, team.id, {
      segmentId: current.segment_id,
      tags: current.tags,
      contactIds: current.contact_ids,
    }),
  );
  const agentId = await campaignAgent(db, current);
  if (!(await hasActiveIntegration(db, team.id, agentId, current.channel))) {
    throw ruleBroken('integration_inactive', `The sending agent has no active ${current.channel} integration`, {
      agentId,
      channel: current.channel,
    });
  }
  const run = current.run + 1;
  const [row] = (await db('campaigns')
    .where({ id: current.id, status: current.status, run: current.run })
    .whereNull('archived_at')
    .update({
      status: scheduledAt ? 'scheduled' : 'sending',
      scheduled_at: scheduledAt,
      run,
      agent_id: agentId,
      send_approved_by: approvedBy,
      cancel_requested_at: null,
      started_at: scheduledAt ? null : db.fn.now(),
      updated_at: db.fn.now(),
    })
    .returning('*')) as CampaignRow[];
  if (!row) throw invalidState('The campaign changed while it was being sent; read it and try again');
  // Back to exactly what was read, run number included: a send repeated after the failure reuses
  // the workflow id, so a start that did reach Temporal despite the error is found, not doubled.
  await startRun(ctx, team, row, run, { scheduledAt: scheduledAt?.toISOString() ?? null, retry: false }, () =>
    db('campaigns').where({ id: row.id, run }).whereIn('status', ['sending', 'scheduled']).update({
      status: current.status,
      scheduled_at: current.scheduled_at,
      run: current.run,
      agent_id: current.agent_id,
      send_approved_by: current.send_approved_by,
      started_at: current.started_at,
      updated_at: db.fn.now(),
    }),
  );
  return presentCampaign(row);
}
