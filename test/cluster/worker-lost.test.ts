import { temporalClient, sleep } from '../support/helpers';
import {
  activityAttempts,
  expectEveryRecipientOnce,
  RECIPIENTS,
  sendBigCampaign,
  useFaultSuite,
  waitUntilDelivered,
} from './campaignUnderFault';

/**
 * The pid of the shared worker that runs the campaign's send right now, from the identity
 * (`<pid>@<host>`, the SDK's default) Temporal records on the pending activity.
 */
async function workerSending(campaignId: string, workerPids: number[]): Promise<number> {
  const client = await temporalClient();
  try {
    for (let i = 0; i < 100; i++) {
      const described = await client.workflow.getHandle(`campaign-${campaignId}-run-1`).describe();
      const identity = described.raw.pendingActivities?.[0]?.lastWorkerIdentity ?? '';
      const pid = Number(identity.split('@')[0]);
      if (workerPids.includes(pid)) return pid;
      await sleep(100);
    }
    throw new Error(`no shared worker (${workerPids.join(', ')}) runs the send of campaign ${campaignId}`);
  } finally {
    await client.connection.close();
  }
}

/** The pid of the worker that started the run's last activity attempt (the one that completed the send). */
async function lastActivityWorker(campaignId: string): Promise<number> {
  const client = await temporalClient();
  try {
    const history = await client.workflow.getHandle(`campaign-${campaignId}-run-1`).fetchHistory();
    const identities = (history.events ?? []).flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.identity ?? ''] : [],
    );
    return Number(identities[identities.length - 1]?.split('@')[0]);
  } finally {
    await client.connection.close();
  }
}

/**
 * Production profile, last of its run: of the two shared workers, the one sending a
 * 20 000-recipient SMTP campaign is SIGKILLed and not brought back. The other takes the send
 * over; the campaign completes with every recipient reached once.
 */
describe('a shared worker lost for good mid-campaign (production profile)', () => {
  const suite = useFaultSuite();

  it('the sending worker SIGKILLed, never restarted: the other worker completes the campaign, one message per recipient', async () => {
    const workerPids = process.env.SHARED_WORKER_PIDS!.split(',').map(Number);
    expect(workerPids).toHaveLength(2);
    const campaign = await sendBigCampaign(suite, 'workerlost');
    const delivered = await waitUntilDelivered(suite, campaign, 0.4);
    const victim = await workerSending(campaign.campaignId, workerPids);
    process.kill(victim, 'SIGKILL');
    const { repeats, recipientsRepeated } = await expectEveryRecipientOnce(suite, campaign, 1);
    // The send was finished by the survivor: the last activity attempt to start ran there.
    const survivor = workerPids.find((pid) => pid !== victim);
    expect(await lastActivityWorker(campaign.campaignId)).toBe(survivor);
    // The kill landed mid-batch: Temporal gave that attempt up (its heartbeat lapsed) and ran it again.
    const attempts = await activityAttempts(campaign.campaignId);
    expect(Math.max(...attempts)).toBeGreaterThan(1);
    process.stdout.write(
      `[cluster worker-lost] ${RECIPIENTS} recipients over SMTP; worker ${victim} killed for good after ${delivered} messages; ` +
        `messages per recipient: all 1; repeats (same Message-ID): ${repeats} across ${recipientsRepeated} recipients; ` +
        `activity attempts: ${attempts.join(', ')}\n`,
    );
  }, 900_000);
});
