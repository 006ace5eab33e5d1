import { z } from 'zod';

/** The path parameter of a campaign's routes. */
export const campaignParams = z.object({ campaignId: z.string() });
