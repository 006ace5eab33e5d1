import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { clusterPostgresUrl } from '../setup/clusterGlobalSetup';
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

/** The machine's PostgreSQL cluster (Debian's pg_ctlcluster), the one temporal/cluster holds its databases in. */
function pgctl(action: 'stop' | 'start'): void {
  const [version] = fs.readdirSync('/etc/postgresql');
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', action], { stdio: 'inherit' });
}

/**
 * Production profile: the PostgreSQL server under the Temporal cluster is restarted in the middle
 * of a 20 000-recipient SMTP campaign (stopped, checked, started: a restart with an outage long
 * enough to ask the API for work). While it is down the API answers 503 in the envelope; then the
 * campaign completes, every recipient reached once, and nothing is left half-started.
 */
describe("the Temporal cluster's PostgreSQL restarted mid-campaign (production profile)", () => {
  const suite = useFaultSuite();

  it('PostgreSQL restarted: the campaign completes, one message per recipient, nothing stranded', async () => {
    // This test stops the machine's server: it must not be the one that holds the app's database too,
    // whose outage answers database_unavailable instead (test/api/faults.test.ts covers that one).
    const appDb = new URL(process.env.DATABASE_URL!);
    const temporalDb = new URL(clusterPostgresUrl());
    expect(`${appDb.hostname}:${appDb.port || 5432}`).not.toBe(`${temporalDb.hostname}:${temporalDb.port || 5432}`);

    const campaign = await sendBigCampaign(suite, 'pgrestart');
    const draft = await draftCampaign(suite, campaign.team, 'pgrestart-draft');
    const delivered = await waitUntilDelivered(suite, campaign, 0.3);
    pgctl('stop');
    const outage = await expectTemporalUnavailable(draft, 'export-while-postgres-down').finally(() => pgctl('start'));
    const { repeats, recipientsRepeated } = await expectEveryRecipientOnce(suite, campaign, 1);
    await expectNothingStranded(suite, [outage]);
    process.stdout.write(
      `[cluster postgres-restart] ${RECIPIENTS} recipients over SMTP; PostgreSQL restarted after ${delivered} messages; ` +
        `messages per recipient: all 1; repeats (same Message-ID): ${repeats} across ${recipientsRepeated} recipients; ` +
        `activity attempts: ${(await activityAttempts(campaign.campaignId)).join(', ')}\n`,
    );
  }, 900_000);
});
