import { newId } from '../../services/platform/ids';
import { apiClient, newTeam, sleep, useProviderSuite } from '../support/helpers';

/** A provider's send rate (CAMPAIGN_RATE_LIMITS) holds for a campaign: never more than that many messages in a second. */
describe('campaign send rate per provider', () => {
  const suite = useProviderSuite('rate', { TEMPORAL_TASK_QUEUE: `campaign-rate-${process.pid}` });

  it('sends 30 messages at no more than 5 a second', async () => {
    await suite.startWorker({ CAMPAIGN_RATE_LIMITS: JSON.stringify({ resend: 5 }) });
    const team = await newTeam(suite.db, 'rate');
    const api = apiClient(suite.server.baseUrl, team);
    await api.call('PUT', `/agents/${team.agentId}/integrations/email`, {
      provider: 'resend',
      config: { baseUrl: suite.fake.baseUrl },
      secrets: { apiKey: 'k' },
      from: 'news@acme.example',
    });
    const rows = Array.from({ length: 30 }, (_, i) => ({
      id: newId('ct'),
      team_id: team.teamId,
      name: `R ${i}`,
      email: `rate${i}-${Date.now()}@example.test`,
      tags: ['rate'],
      marketing_consent: 'granted',
    }));
    await suite.db('contacts').insert(rows);
    const campaign = (await api.post('/campaigns', { name: 'Rated', channel: 'email', content: 'Hi', tags: ['rate'] }))
      .body;
    await api.post(`/campaigns/${campaign.id}/send`, {});
    let status = 'sending';
    for (let i = 0; i < 200 && status === 'sending'; i++) {
      await sleep(100);
      status = (await api.get(`/campaigns/${campaign.id}`)).body.status;
    }
    expect(status).toBe('completed');
    const times = [...suite.fake.messages.values()].map((m) => m.receivedAt).sort((a, b) => a - b);
    expect(times).toHaveLength(30);
    // Granted one per 200 ms, so 30 take at least 5.8 s to leave; arrivals at the provider may
    // bunch a little on a loaded machine. Without the limit all 30 arrive within a second.
    const busiest = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
    expect(busiest).toBeLessThanOrEqual(8);
    expect(times[29] - times[0]).toBeGreaterThanOrEqual(4500);
  });
});
