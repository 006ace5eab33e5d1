import { z } from 'zod';
import { channelSchema } from '../../channels/types';
import { deliveryStart, deliveryWorkflowId, type DeliveryWorkflow } from '../../workflows/contracts/delivery';
import { sendingAgent } from '../agents/agents';
import { hasActiveIntegration } from '../agents/integrations';
import { addressNoun, addressOf, CONTACT_ADDRESS_COLUMNS } from '../contacts/channelAddress';
import type { Principal } from '../identity/principal';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, invalidState, ruleBroken } from '../platform/errors';
import { newId } from '../../db/ids';
import { deliverySchema, type DeliveryInput } from './deliveryTypes';
import { claimExecution, dedupeKey, executionUrl, failUnstartedExecution } from './warpExecutions';

/** POST /v1/artifacts/deliver, exactly the spec's body. */
export const deliverRequestSchema = z.strictObject({
  artifactIds: z.array(z.string().min(1).max(100)).min(1).max(50),
  message: z.string().trim().min(1).max(5000),
  /** Every channel but push: a delivery goes to a person's email or phone. */
  integration: channelSchema.exclude(['push']),
  subject: z.string().trim().min(1).max(300).optional(),
  contactIds: z.array(z.string().min(1).max(100)).min(1).max(100).optional(),
  agentId: z.string().max(100).optional(),
});
export type DeliverRequest = z.infer<typeof deliverRequestSchema>;

/** What a deliver request answers: its execution, and once sent (auto mode) the delivery records. */
const deliveryStartedSchema = z.object({ executionId: z.string(), status: z.string(), statusUrl: z.url() });
export const deliverySentSchema = deliveryStartedSchema.extend({
  pending: z.literal(false),
  deliveries: z.array(deliverySchema),
});
export const deliveryWaitingSchema = deliveryStartedSchema.extend({ pending: z.boolean() });

/** `deliverArtifacts`' outcome: the answer's body, and the HTTP status and Location it calls for. */
export const deliverAnswerSchema = z.object({
  httpStatus: z.union([z.literal(200), z.literal(202)]),
  pending: z.boolean(),
  status: z.string(),
  statusUrl: z.url(),
  body: z.union([deliverySentSchema, deliveryWaitingSchema]),
});
export type DeliverAnswer = z.input<typeof deliverAnswerSchema>;

export { deliveryWorkflowId };

/**
 * Checks a deliver request against the rules, then starts the delivery workflow. Auto mode
 * answers 200 with the delivery records once sent (202 if the providers are slow); manual mode
 * answers 202 `{ pending: true, executionId, statusUrl }` and waits for an approval.
 */
export async function deliverArtifacts(
  ctx: AppContext,
  team: TeamRef,
  principal: Principal,
  request: DeliverRequest,
  /** A keyed run's execution id (services/warps/warpKit.ts `WarpCall.executionId`). */
  keyedId?: string,
): Promise<DeliverAnswer> {
  const { db } = ctx;
  const artifactIds = [...new Set(request.artifactIds)];
  const artifacts = await db('artifacts')
    .where({ team_id: team.id })
    .whereIn('id', artifactIds)
    .select('id', 'status', 'contact_id');
  const missing = artifactIds.filter((id) => !artifacts.some((a) => a.id === id));
  if (missing.length) throw new AppError('not_found', 'Artifact not found', { artifactIds: missing });
  const notReady = artifacts.filter((a) => a.status !== 'ready' && a.status !== 'sent');
  if (notReady.length) {
    throw invalidState('Only ready (or already sent) artifacts can be delivered; mark drafts ready first', {
      artifacts: notReady.map((a) => ({ id: a.id, status: a.status })),
    });
  }

  let contactIds = request.contactIds
    ? [...new Set(request.contactIds)]
    : [...new Set(artifacts.map((a) => a.contact_id))];
  if (!request.contactIds && contactIds.includes(null)) {
    throw ruleBroken('no_recipient', 'Some artifacts have no contact; name the recipients in contactIds', {
      artifactIds: artifacts.filter((a) => !a.contact_id).map((a) => a.id),
    });
  }
  contactIds = contactIds.filter(Boolean);
  const contacts = await db('contacts')
    .where({ team_id: team.id })
    .whereIn('id', contactIds as string[])
    .select('id', ...CONTACT_ADDRESS_COLUMNS);
  const unknown = contactIds.filter((id) => !contacts.some((c) => c.id === id));
  if (unknown.length)
    throw ruleBroken('unknown_contact', 'Some recipients are not contacts of this team', { contactIds: unknown });
  const unreachable = contacts.filter((c) => !addressOf(request.integration, c));
  if (unreachable.length) {
    throw ruleBroken('recipient_unreachable', `Some recipients have no ${addressNoun(request.integration)}`, {
      contactIds: unreachable.map((c) => c.id),
      integration: request.integration,
    });
  }

  const agent = await sendingAgent(db, team.id, request.agentId, principal.kind === 'oauth' ? principal.agentId : null);
  if (!(await hasActiveIntegration(db, team.id, agent.id, request.integration))) {
    throw ruleBroken('integration_inactive', `The agent has no active ${request.integration} integration`, {
      agentId: agent.id,
      integration: request.integration,
    });
  }

  const mode: 'auto' | 'manual' = agent.mode === 'manual' ? 'manual' : 'auto';
  const recipients = contacts.map((c) => ({ contactId: c.id, address: addressOf(request.integration, c)! }));
  const stored = { ...request, artifactIds, agentId: agent.id, recipients };
  // The same request while its delivery is still open (a client's retry) finds that delivery.
  const claimed = await claimExecution(
    db,
    {
      id: keyedId ?? newId('wx'),
      team_id: team.id,
      agent_id: agent.id,
      warp: 'artifact-deliver',
      status: mode === 'manual' ? 'pending_approval' : 'running',
      input: JSON.stringify(stored),
      created_by: principal.userId,
      dedupe_key: dedupeKey(agent.id, 'artifact-deliver', stored),
      approval_expires_at:
        mode === 'manual' ? db.raw(`now() + make_interval(secs => ?)`, [ctx.config.APPROVAL_TTL_SECONDS]) : null,
    },
    deliveryWorkflowId,
    keyedId !== undefined,
  );
  const executionId = claimed.id;
  const input: DeliveryInput = {
    executionId,
    teamId: team.id,
    agentId: agent.id,
    channel: request.integration,
    mode,
    approvalTimeoutMs: ctx.config.APPROVAL_TTL_SECONDS * 1000,
    message: request.message,
    subject: request.subject,
    artifactIds,
    recipients,
  };
  const workflowId = claimed.workflowId;

  await ctx.temporal.startTracked(
    deliveryStart,
    input,
    {
      team,
      staticSummary: `artifact-deliver ${executionId} (${mode}) for team ${team.slug}: ${artifactIds.length} artifact(s) to ${contacts.length} contact(s) by ${request.integration}`,
      staticDetails: `Warp execution **${executionId}**. Status: GET ${executionUrl(ctx.config.baseUrl, executionId)}`,
    },
    {
      // Only a start that never reached Temporal fails the row; a timed-out one may still run, and a
      // retry must find the open execution rather than send a second time.
      onFailure: async ({ neverReached }) => neverReached && failUnstartedExecution(db, claimed),
      details: { executionId },
    },
  );
  // Started (now, or by the earlier request this one repeats): the client is connected, getHandle is local.
  const handle = (await ctx.temporal.client()).workflow.getHandle<DeliveryWorkflow>(workflowId);
  const statusUrl = executionUrl(ctx.config.baseUrl, executionId);
  if (mode === 'manual') {
    // A retry may find the delivery already approved and running: it says so.
    const status = claimed.status === 'running' ? ('running' as const) : ('pending_approval' as const);
    return {
      httpStatus: 202,
      pending: true,
      status,
      statusUrl,
      body: { pending: true, executionId, status, statusUrl },
    };
  }
  const result = await ctx.temporal.waitUpTo(() => handle.result(), ctx.config.DELIVERY_WAIT_SECONDS * 1000);
  if (!result) {
    return {
      httpStatus: 202,
      pending: false,
      status: 'running' as const,
      statusUrl,
      body: { pending: false, executionId, status: 'running', statusUrl },
    };
  }
  return {
    httpStatus: 200,
    pending: false,
    status: result.status,
    statusUrl,
    body: { pending: false, executionId, status: result.status, statusUrl, deliveries: result.deliveries },
  };
}
