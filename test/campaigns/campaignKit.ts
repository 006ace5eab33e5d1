import { sleep, type ApiClient } from '../support/helpers';

/** What the campaign field and retry suites share: contacts that can be sent to, and waiting on a campaign. */
export function campaignKit(api: () => ApiClient) {
  let n = 0;
  /** A contact with marketing consent granted; `fields` override its name, email, phone, properties. */
  async function contact(fields: Record<string, unknown> = {}) {
    const i = ++n;
    const created = (
      await api().post('/contacts', {
        name: `Kit${i} Person`,
        email: `kit${i}-${Date.now()}@example.test`,
        ...fields,
      })
    ).body;
    if (!created?.id) throw new Error(`contact not created: ${JSON.stringify(created)}`);
    await api().call('PATCH', `/contacts/${created.id}`, { marketingConsent: 'granted' });
    return created as { id: string; email?: string; firstName: string };
  }

  /** Polls GET /campaigns/{id} until `done` holds for it. */
  async function until(campaignId: string, done: (c: any) => boolean, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    let last: any;
    while (Date.now() < deadline) {
      last = (await api().get(`/campaigns/${campaignId}`)).body;
      if (done(last)) return last;
      await sleep(150);
    }
    throw new Error(`campaign ${campaignId} stayed ${last?.status}`);
  }

  return { contact, until, finished: (c: any) => c.status === 'completed' || c.status === 'failed' };
}
