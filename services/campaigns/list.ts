import { z } from 'zod';
import type { Db } from '../../db/knex';
import { keysetPage, Page } from '../platform/pagination';
import { CampaignRow, presentCampaign } from './campaignRow';
import type { CampaignJson, campaignListQuerySchema } from './schemas';

export async function listCampaigns(
  db: Db,
  teamId: string,
  query: z.infer<typeof campaignListQuerySchema>,
): Promise<Page<CampaignJson>> {
  const q = db('campaigns').where({ team_id: teamId });
  if (query.archived) q.whereNotNull('archived_at');
  else q.whereNull('archived_at');
  if (query.status) q.where({ status: query.status });
  // Newest first, as list_campaigns describes it: the campaign just made leads the page.
  return keysetPage(q.select('*'), query, (row: CampaignRow & { seq: number }) => presentCampaign(row), {
    newestFirst: true,
  });
}
