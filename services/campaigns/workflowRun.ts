import { WorkflowNotFoundError } from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import type { Db } from '../../db/knex';
import { campaignStart, campaignWorkflowId } from '../../workflows/contracts/campaign';
import type { AppContext, TeamRef } from '../platform/context';
import { invalidState } from '../platform/errors';
import { CampaignRow, findCampaign, getCampaign, presentCampaign } from './campaignRow';
import type { CampaignJson, CampaignStatus } from './schemas';

/** A campaign's runs as Temporal workflows: the id of run n, starting it, signalling it, and waiting for it to move. */
export { campaignWorkflowId };

/**
 * Starts run `run`; if Temporal does not take it, `release` puts the campaign back where the
 * same request can be made again (never `sending` with no workflow) and the caller gets a 503.
 */
export async function startRun(
  ctx: AppContext,
  team: TeamRef,
  row: CampaignRow,
  run: number,
  args: { scheduledAt: string | null; retry: boolean },
  release: () => Promise<unknown>,
) {
  await ctx.temporal.startTracked(
    campaignStart,
    {
      campaignId: row.id,
      teamId: team.id,
      run,
      scheduledAt: args.scheduledAt,
      retry: args.retry,
      batchSize: ctx.config.CAMPAIGN_BATCH_SIZE,
    },
    { team, staticSummary: `campaign ${row.id} "${row.name}" run ${run} (${row.channel}) for team ${team.slug}` },
    { onFailure: release },
  );
}

/** Waits (briefly) for the workflow to move the campaign out of `from`, then answers it as it stands. */
export async function settled(db: Db, teamId: string, campaignId: string, from: CampaignStatus): Promise<CampaignJson> {
  for (let waited = 0; waited < 10_000; waited += 100) {
    const row = await findCampaign(db, teamId, campaignId);
    if (row.status !== from) return presentCampaign(row);
    await new Promise((r) => setTimeout(r, 100));
  }
  return getCampaign(db, teamId, campaignId);
}

/** Signals the campaign's current run; a run that has ended is 409. */
export async function signalRun(ctx: AppContext, row: CampaignRow, definition: SignalDefinition<[]>) {
  try {
    await ctx.temporal.call((client) =>
      client.workflow.getHandle(campaignWorkflowId(row.id, row.run)).signal(definition),
    );
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw invalidState('The campaign run has already ended');
    throw err;
  }
}
