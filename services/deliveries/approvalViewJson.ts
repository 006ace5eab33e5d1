import { z } from 'zod';
import type { AppContext } from '../platform/context';
import { approvalView } from './approvalPages';
import { executionRow } from './warpExecutions';

/** The approval link page's content as JSON, for the console's inbox. */
export const approvalViewSchema = z.object({
  noun: z.enum(['delivery', 'request']),
  question: z.string(),
  summary: z.string(),
  facts: z.array(z.object({ label: z.string(), value: z.string() })),
  recipients: z.array(z.object({ name: z.string().nullable(), address: z.string() })),
  message: z.object({ subject: z.string().nullable(), body: z.string() }).nullable(),
  approveLabel: z.string(),
  expiresAt: z.iso.datetime().nullable(),
  decided: z.object({ heading: z.string(), sentence: z.string() }).nullable(),
});

/** What approving an execution of the team would do, in words: the approval page's view. */
export async function approvalViewJson(
  ctx: AppContext,
  teamId: string,
  executionId: string,
): Promise<z.input<typeof approvalViewSchema>> {
  const view = await approvalView(ctx, await executionRow(ctx.db, teamId, executionId));
  return { ...view, expiresAt: view.expiresAt?.toISOString() ?? null };
}
