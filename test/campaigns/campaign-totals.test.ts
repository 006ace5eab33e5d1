import { apiClient, newTeam, useProviderSuite } from '../support/helpers';
import { failing, mcpClient, ok } from '../support/mcpHelpers';
import { campaignKit } from './campaignKit';

/**
 * The spec's historical totals (a campaign archived "still counts in historical totals"): one
 * sum over every campaign of the team, archived included, the same on HTTP and MCP.
 */
describe('campaign totals', () => {
  const suite = useProviderSuite('campaign-totals');
  const { contact, until, finished } = campaignKit(() => suite.api);

  it('count every campaign, archived included, with their sends summed; HTTP and MCP answer the same; another team counts apart', async () => {
    const res = await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/sms`, {
      provider: 'twilio',
      config: { baseUrl: suite.fake.baseUrl, accountSid: 'AC1' },
      secrets: { authToken: 't' },
    });
    expect(res.status).toBe(200);
    expect((await suite.api.call('PUT', '/apps/campaigns')).status).toBe(200);

    const empty = (await suite.api.get('/campaigns/totals')).body;
    expect(empty).toMatchObject({ campaigns: 0, archived: 0, sent: 0, byStatus: { draft: 0, completed: 0 } });

    // Two reached by SMS, one without a phone (skipped: missing_channel).
    const reached = [await contact({ phone: '+15550000101' }), await contact({ phone: '+15550000102' })];
    const noPhone = await contact();
    const sent = (
      await suite.api.post('/campaigns', {
        name: 'Totals sent',
        channel: 'sms',
        content: 'Hello',
        contactIds: [...reached, noPhone].map((c) => c.id),
      })
    ).body;
    await suite.api.post(`/campaigns/${sent.id}/send`, {});
    expect(await until(sent.id, finished)).toMatchObject({ status: 'completed', sentCount: 2, skippedCount: 1 });
    expect((await suite.api.post(`/campaigns/${sent.id}/archive`)).body.archived).toBe(true);
    // A draft on another channel.
    const draft = await suite.api.post('/campaigns', {
      name: 'Totals draft',
      channel: 'email',
      subject: 'Hi',
      content: 'Hi',
      contactIds: [noPhone.id],
    });
    expect([draft.status, draft.body.error]).toEqual([201, undefined]);

    const totals = (await suite.api.get('/campaigns/totals')).body;
    expect(totals).toEqual({
      campaigns: 2,
      archived: 1,
      byStatus: {
        draft: 1,
        pending: 0,
        approved: 0,
        rejected: 0,
        scheduled: 0,
        sending: 0,
        completed: 1,
        failed: 0,
      },
      recipients: 3,
      sent: 2,
      skipped: 1,
      failed: 0,
      opened: 0,
      clicked: 0,
    });
    // The archived campaign has left the active list, not the totals.
    expect((await suite.api.get('/campaigns')).body.data.map((c: any) => c.id)).not.toContain(sent.id);
    expect((await suite.api.get('/campaigns/totals?channel=sms')).body).toMatchObject({ campaigns: 1, sent: 2 });
    expect((await suite.api.get('/campaigns/totals?channel=push')).body).toMatchObject({ campaigns: 0, sent: 0 });

    const bad = await suite.api.get('/campaigns/totals?channel=fax');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');

    const client = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
    try {
      expect(await ok(client, 'campaign_totals')).toEqual(totals);
      expect(await ok(client, 'campaign_totals', { channel: 'email' })).toMatchObject({ campaigns: 1, sent: 0 });
      expect((await failing(client, 'campaign_totals', { channel: 'fax' })).code).toBe('validation_error');
    } finally {
      await client.close();
    }

    const other = await newTeam(suite.db, 'campaign-totals-other');
    expect((await apiClient(suite.server.baseUrl, other).get('/campaigns/totals')).body).toMatchObject({
      campaigns: 0,
      sent: 0,
    });
  });
});
