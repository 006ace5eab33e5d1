import { killClusterService, startClusterService } from '../../temporal/cluster';
import {
  activityAttempts,
  draftCampaign,
  expectEveryRecipientOnce,
  expectNothingStranded,
  expectTemporalUnavailable,
  RECIPIENTS,
  sendBigCampaign,
  useFaultSuite,
  waitUntilDelivered,
} from './campaignUnderFault';

/**
 * Production profile: the cluster's history service, then its frontend, SIGKILLed in the middle
 * of a 20 000-recipient SMTP campaign and started again, as a supervisor would. While each is
 * gone the API answers 503 in the envelope; afterwards the campaign completes with every
 * recipient reached once, and nothing the outage touched is left half-started.
 */
describe('cluster services killed mid-campaign (production profile)', () => {
  const suite = useFaultSuite();

  it('history, then frontend, SIGKILLed and restarted: the campaign completes, one message per recipient', async () => {
    const campaign = await sendBigCampaign(suite, 'svckill');
    const outages = [];
    const kills: string[] = [];
    for (const [service, fraction] of [
      ['history', 0.25],
      ['frontend', 0.6],
    ] as const) {
      const draft = await draftCampaign(suite, campaign.team, `svckill-${service}-draft`);
      const delivered = await waitUntilDelivered(suite, campaign, fraction);
      await killClusterService(suite.cluster, service);
      kills.push(`${service} after ${delivered}`);
      outages.push(
        await expectTemporalUnavailable(draft, `export-while-${service}-down`).finally(() =>
          startClusterService(suite.cluster, service),
        ),
      );
    }
    const { repeats, recipientsRepeated } = await expectEveryRecipientOnce(suite, campaign, kills.length);
    await expectNothingStranded(suite, outages);
    process.stdout.write(
      `[cluster services-killed] ${RECIPIENTS} recipients over SMTP; killed ${kills.join(', ')} messages; ` +
        `messages per recipient: all 1; repeats (same Message-ID): ${repeats} across ${recipientsRepeated} recipients; ` +
        `activity attempts: ${(await activityAttempts(campaign.campaignId)).join(', ')}\n`,
    );
  }, 900_000);
});
