import { newId } from '../../db/ids';
import { apiClient, newTeam, sleep, temporalClient, useProviderSuite } from '../support/helpers';

/**
 * The worker is killed (SIGKILL) three times during a 20 000-recipient email campaign. Every
 * recipient still gets exactly one message (the suite.fake provider counts per idempotency key), and
 * the counters add up.
 */
describe('a campaign send that survives three worker crashes', () => {
  const total = 20_000;
  const suite = useProviderSuite('restart', {
    TEMPORAL_TASK_QUEUE: `campaign-restart-${process.pid}`,
    CAMPAIGN_BATCH_SIZE: '1000',
  });

  it('each of 20 000 recipients gets exactly one message', async () => {
    const workerEnv = {};
    await suite.startWorker(workerEnv);
    const team = await newTeam(suite.db, 'ckill');
    const api = apiClient(suite.server.baseUrl, team);
    await api.call('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'news@acme.example',
    });
    const rows = Array.from({ length: total }, (_, i) => ({
      id: newId('ct'),
      team_id: team.teamId,
      name: `Person ${i}`,
      first_name: 'Person',
      email: `p${i}@crash.example`,
      tags: ['crash'],
      marketing_consent: 'granted',
    }));
    for (let i = 0; i < rows.length; i += 5000) await suite.db('contacts').insert(rows.slice(i, i + 5000));
    const campaign = (
      await api.post('/campaigns', {
        name: 'Crash test',
        channel: 'email',
        subject: 'Hello {{first}}',
        content: 'Hi {{first}}',
        templateParams: { first: 'contact.firstName' },
        tags: ['crash'],
      })
    ).body;
    expect((await api.post(`/campaigns/${campaign.id}/send`, {})).body.status).toBe('sending');

    const kills: number[] = [];
    for (const fraction of [0.2, 0.45, 0.7]) {
      while (suite.fake.messages.size < total * fraction) await sleep(100);
      await suite.workers[suite.workers.length - 1].kill();
      kills.push(suite.fake.messages.size);
      await suite.startWorker(workerEnv);
    }
    let final: any;
    for (let i = 0; i < 1200; i++) {
      final = (await api.get(`/campaigns/${campaign.id}`)).body;
      if (final.status === 'completed' || final.status === 'failed') break;
      await sleep(250);
    }
    expect(final).toMatchObject({
      status: 'completed',
      recipientCount: total,
      sentCount: total,
      failedCount: 0,
      skippedCount: 0,
    });
    const perRecipient = new Map<string, number>();
    for (const m of suite.fake.messages.values()) perRecipient.set(m.to, (perRecipient.get(m.to) ?? 0) + 1);
    expect(perRecipient.size).toBe(total);
    expect([...perRecipient.values()].every((count) => count === 1)).toBe(true);
    const [{ sent }] = await suite
      .db('campaign_recipients')
      .where({ campaign_id: campaign.id, status: 'sent' })
      .count({ sent: '*' });
    expect(Number(sent)).toBe(total);
    // Batches re-run after each kill: still one outbound message per recipient, with the id the provider kept for its key.
    const outbound = await suite
      .db('outbound_messages')
      .where({ source_kind: 'campaign', source_id: campaign.id })
      .select('idempotency_key', 'provider_message_id', 'status');
    expect(outbound).toHaveLength(total);
    const providerIds = new Map([...suite.fake.messages.values()].map((m) => [m.key, m.id]));
    expect(
      outbound.filter((m) => m.status === 'sent' && m.provider_message_id === providerIds.get(m.idempotency_key)),
    ).toHaveLength(total);

    const client = await temporalClient();
    const runs: number[] = [];
    try {
      for await (const run of client.workflow.list({ query: `WorkflowId = "campaign-${campaign.id}-run-1"` })) {
        runs.push((await client.workflow.getHandle(run.workflowId, run.runId).describe()).historyLength);
      }
    } finally {
      await client.connection.close();
    }
    process.stdout.write(
      `[campaign-restart] ${total} recipients; kills after ${kills.join(', ')} messages; ` +
        `messages per recipient: all 1; repeats dropped by key: ${suite.fake.totalDuplicates()}; provider requests: ${suite.fake.requests}; ` +
        `workflow runs: ${runs.length}, history events per run: ${runs.join(', ')}\n`,
    );
    // 20 000 sends through three worker restarts: about a minute on a quiet machine, over two when
    // the machine is shared; the time is not what this test checks.
  }, 300_000);
});
