import { randomUUID } from 'node:crypto';
import { useProviderSuite } from '../support/helpers';
import { campaignKit } from './campaignKit';

/**
 * An SMS, a push and an HTML email campaign sent end to end through the API, the campaign
 * workflow and the fake providers over HTTP: what each recipient's provider received. The HTML
 * email carries the HTML unsubscribe footer, a fragment body is sent as a fragment, and a test
 * send renders the HTML too. Issue 38 item 13.
 */
describe('campaign sends by channel, as the providers receive them', () => {
  const suite = useProviderSuite('campaign-channels');
  const { contact, until, finished } = campaignKit(() => suite.api);

  beforeAll(async () => {
    const fake = suite.fake.baseUrl;
    for (const [channel, body] of Object.entries({
      email: { provider: 'resend', config: { baseUrl: fake }, secrets: { apiKey: 'k' }, from: 'news@acme.example' },
      sms: { provider: 'twilio', config: { baseUrl: fake, accountSid: 'AC1' }, secrets: { authToken: 't' } },
      push: { provider: 'fcm', config: { baseUrl: fake, projectId: 'p1' }, secrets: { accessToken: 't' } },
    })) {
      const res = await suite.api.call('PUT', `/agents/${suite.team.agentId}/integrations/${channel}`, body);
      expect([channel, res.status]).toEqual([channel, 200]);
    }
  });

  /** Creates and sends a campaign; answers it once it ended, with its one recipient. */
  async function sendCampaign(fields: Record<string, unknown>) {
    const created = await suite.api.post('/campaigns', { name: `Channels ${randomUUID().slice(0, 8)}`, ...fields });
    expect(created.status).toBe(201);
    expect((await suite.api.post(`/campaigns/${created.body.id}/send`, {})).status).toBe(200);
    const done = await until(created.body.id, finished);
    const [recipient] = (await suite.api.get(`/campaigns/${created.body.id}/recipients`)).body.data;
    return { campaign: done, recipient };
  }

  const footerLink = (html: string) =>
    /<a href="([^"]+)">Unsubscribe<\/a><\/p>/.exec(html)?.[1] ?? 'no unsubscribe link in the HTML';

  it('SMS: the provider receives the body with its placeholders filled, to the contact phone, and no email footer', async () => {
    const who = await contact({ phone: '+15550102030' });
    const { campaign, recipient } = await sendCampaign({
      channel: 'sms',
      content: 'Hi {{first}}, your table at {{place}} is ready',
      templateParams: { first: 'contact.firstName', place: 'Luigi & Sons' },
      contactIds: [who.id],
    });
    expect(campaign).toMatchObject({ status: 'completed', sentCount: 1, failedCount: 0 });
    const received = suite.fake.byRecipient('+15550102030');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      provider: 'twilio',
      text: `Hi ${who.firstName}, your table at Luigi & Sons is ready`,
      duplicates: 0,
    });
    expect(recipient).toMatchObject({ status: 'sent', providerMessageId: received[0].id });
  });

  it("push: the provider receives the title and body with placeholders filled, to the contact's push token", async () => {
    const token = `device-${randomUUID().slice(0, 8)}`;
    const who = await contact({ properties: { pushToken: token } });
    const { campaign, recipient } = await sendCampaign({
      channel: 'push',
      title: 'News for {{first}}',
      content: '{{first}}, the spring menu is out',
      templateParams: { first: 'contact.firstName' },
      contactIds: [who.id],
    });
    expect(campaign).toMatchObject({ status: 'completed', sentCount: 1, title: 'News for {{first}}' });
    const received = suite.fake.byRecipient(token);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      provider: 'fcm',
      subject: `News for ${who.firstName}`, // the fake's name for the notification title
      text: `${who.firstName}, the spring menu is out`,
    });
    expect(recipient).toMatchObject({ status: 'sent', providerMessageId: `projects/p1/messages/${received[0].id}` });
  });

  it('HTML email with a fragment body: the fragment as written (placeholders filled, values escaped), then the HTML unsubscribe footer, whose link works', async () => {
    const who = await contact({ company: 'Smith & Sons <Ltd>' });
    const fragment = '<h1>Hello {{first}}</h1><p>News for {{company}}.</p>';
    const { campaign, recipient } = await sendCampaign({
      channel: 'email',
      subject: 'News for {{first}}',
      content: 'Hello {{first}}, news for {{company}}.',
      contentHtml: fragment,
      templateParams: { first: 'contact.firstName', company: 'contact.company' },
      contactIds: [who.id],
    });
    expect(campaign).toMatchObject({ status: 'completed', sentCount: 1, contentHtml: fragment });
    const [received] = suite.fake.byRecipient(who.email!);
    expect(received).toMatchObject({
      provider: 'resend',
      from: 'news@acme.example',
      subject: `News for ${who.firstName}`,
    });
    expect(recipient).toMatchObject({ status: 'sent', providerMessageId: received.id });
    // The fragment is sent as a fragment (no document around it), a contact's value is text in it.
    const body = `<h1>Hello ${who.firstName}</h1><p>News for Smith &amp; Sons &lt;Ltd&gt;.</p>`;
    expect(received.html!.startsWith(body)).toBe(true);
    expect(received.html).not.toMatch(/<html|<body/i);
    const link = footerLink(received.html!);
    expect(received.html).toBe(
      `${body}<p style="font-size:12px;color:#666;margin-top:24px">You receive this because you are a contact of ours. <a href="${link}">Unsubscribe</a></p>`,
    );
    // The plain part keeps its own footer, with the same link, and the one-click headers name it.
    expect(received.text).toBe(
      `Hello ${who.firstName}, news for Smith & Sons <Ltd>.\n\n--\nYou receive this because you are a contact of ours. Unsubscribe: ${link}`,
    );
    expect(received.headers).toEqual({
      'List-Unsubscribe': `<${link}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    // The worker signs it under its BASE_URL (in tests not this API's port): open its path here.
    const { pathname, search } = new URL(link);
    expect(pathname).toBe(`${new URL(suite.server.baseUrl).pathname}/unsubscribe/${who.id}`);
    const page = await fetch(`${new URL(suite.server.baseUrl).origin}${pathname}${search}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(who.email);
  });

  it('HTML email with a full document: the footer goes inside its body, before </body>', async () => {
    const who = await contact();
    const { campaign } = await sendCampaign({
      channel: 'email',
      subject: 'Document',
      content: 'Plain version',
      contentHtml: '<!doctype html><html><body><p>Full {{first}}</p></body></html>',
      templateParams: { first: 'contact.firstName' },
      contactIds: [who.id],
    });
    expect(campaign).toMatchObject({ status: 'completed', sentCount: 1 });
    const [received] = suite.fake.byRecipient(who.email!);
    const link = footerLink(received.html!);
    expect(received.html).toBe(
      `<!doctype html><html><body><p>Full ${who.firstName}</p><p style="font-size:12px;color:#666;margin-top:24px">You receive this because you are a contact of ours. <a href="${link}">Unsubscribe</a></p></body></html>`,
    );
  });

  it('a test send of an HTML campaign: [TEST] subject, the rendered HTML with its footer, and the campaign unchanged', async () => {
    const who = await contact();
    const created = await suite.api.post('/campaigns', {
      name: 'HTML test send',
      channel: 'email',
      subject: 'Offer for {{first}}',
      content: 'Offer for {{first}}',
      contentHtml: '<p>An <b>offer</b> for {{first}}</p>',
      templateParams: { first: 'contact.firstName' },
      contactIds: [who.id],
    });
    const res = await suite.api.post(`/campaigns/${created.body.id}/send-test`, { contactId: who.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sent: true, to: who.email, subject: `[TEST] Offer for ${who.firstName}` });
    const received = suite.fake.byRecipient(who.email!);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ subject: `[TEST] Offer for ${who.firstName}`, id: res.body.providerMessageId });
    const link = footerLink(received[0].html!);
    expect(received[0].html).toBe(
      `<p>An <b>offer</b> for ${who.firstName}</p><p style="font-size:12px;color:#666;margin-top:24px">You receive this because you are a contact of ours. <a href="${link}">Unsubscribe</a></p>`,
    );
    expect(received[0].text).toContain(`Unsubscribe: ${link}`);
    expect((await suite.api.get(`/campaigns/${created.body.id}`)).body).toMatchObject({
      status: 'draft',
      sentCount: 0,
      recipientCount: 0,
    });
  });
});
