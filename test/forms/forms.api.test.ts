import { mcpClient, ok } from '../support/mcpHelpers';
import { useApiSuite } from '../support/helpers';

/**
 * The Forms app over HTTP and MCP: create, list, get, update and delete a form with the checks
 * at creation, the submissions count, and the gating: the public page is served only while the
 * app is installed and the form is active; the MCP tools are listed only while it is installed.
 */
describe('forms API', () => {
  const suite = useApiSuite('forms-api');
  const siteUrl = () => suite.server.ctx.config.siteUrl;
  const page = (formId: string) => fetch(`${siteUrl()}/forms/${formId}`);

  it('creates a form with defaults, lists it newest first, reads, changes and deletes it', async () => {
    const created = await suite.api.post('/forms', { name: 'Newsletter', tags: ['newsletter'] });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${suite.server.baseUrl}/forms/${created.body.id}`);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^frm_/),
      name: 'Newsletter',
      title: 'Newsletter',
      fields: [
        { name: 'name', label: 'Name', required: false },
        { name: 'email', label: 'Email', required: true },
      ],
      tags: ['newsletter'],
      consentText: null,
      doubleOptIn: false,
      language: 'en',
      active: true,
      url: `${siteUrl()}/forms/${created.body.id}`,
      submissionCount: 0,
    });
    const second = (await suite.api.post('/forms', { name: 'Webinar', fields: [{ name: 'email' }] })).body;
    const listed = await suite.api.get('/forms?limit=1');
    expect(listed.body.data.map((f: any) => f.id)).toEqual([second.id]);
    const next = await suite.api.get(`/forms?limit=1&cursor=${listed.body.pagination.nextCursor}`);
    expect(next.body.data.map((f: any) => f.id)).toEqual([created.body.id]);

    const changed = await suite.api.call('PATCH', `/forms/${created.body.id}`, {
      title: 'Our monthly letter',
      consentText: 'Send me the monthly newsletter',
      fields: [{ name: 'email' }, { name: 'company', label: 'Your company', required: true }],
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      title: 'Our monthly letter',
      consentText: 'Send me the monthly newsletter',
      fields: [
        { name: 'email', label: 'Email', required: true },
        { name: 'company', label: 'Your company', required: true },
      ],
    });
    expect((await suite.api.get(`/forms/${created.body.id}`)).body.title).toBe('Our monthly letter');
    expect((await suite.api.call('DELETE', `/forms/${second.id}`)).status).toBe(204);
    expect((await suite.api.get(`/forms/${second.id}`)).status).toBe(404);
    expect((await suite.api.call('DELETE', `/forms/${second.id}`)).status).toBe(404);
  });

  it('refuses a form without email, a repeated field, double opt-in without consent wording or sender, an unknown agent', async () => {
    const refused = async (body: unknown, status: number, code: string) => {
      const res = await suite.api.post('/forms', body);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
      return res.body.error;
    };
    await refused({ name: 'x', fields: [{ name: 'name' }] }, 400, 'validation_error');
    await refused({ name: 'x', fields: [{ name: 'email' }, { name: 'email' }] }, 400, 'validation_error');
    await refused({ name: 'x', fields: [{ name: 'email' }, { name: 'birthday' }] }, 400, 'validation_error');
    const noWording = await refused(
      { name: 'x', doubleOptIn: true, agentId: suite.team.agentId },
      400,
      'validation_error',
    );
    expect(noWording.details.issues.map((i: any) => i.path)).toEqual(['consentText']);
    await refused({ name: 'x', doubleOptIn: true, consentText: 'Yes' }, 400, 'validation_error');
    await refused({ name: 'x', agentId: '00000000-0000-4000-8000-000000000000' }, 422, 'unknown_agent');
    // The agent has no email integration: nothing could send the link.
    await refused(
      { name: 'x', doubleOptIn: true, consentText: 'Yes', agentId: suite.team.agentId },
      422,
      'integration_inactive',
    );
    // A PATCH is checked against the form as it would be.
    const form = (await suite.api.post('/forms', { name: 'Later double', consentText: 'Yes please' })).body;
    const patched = await suite.api.call('PATCH', `/forms/${form.id}`, { doubleOptIn: true });
    expect(patched.body.error.details.issues.map((i: any) => i.path)).toEqual(['agentId']);
  });

  it('serves the page only while the Forms app is installed and the form is active; counts submissions', async () => {
    const form = (await suite.api.post('/forms', { name: 'Gated' })).body;
    expect((await page(form.id)).status).toBe(404);
    expect((await suite.api.call('PUT', '/apps/forms')).body).toMatchObject({ slug: 'forms', installed: true });
    const served = await page(form.id);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-security-policy')).toContain("default-src 'none'");
    const submit = await fetch(form.url, {
      method: 'POST',
      body: new URLSearchParams({ name: 'Ada', email: `ada-${Date.now()}@example.test` }),
      headers: { 'x-forwarded-for': '198.51.100.10' },
    });
    expect(submit.status).toBe(200);
    expect((await suite.api.get(`/forms/${form.id}`)).body.submissionCount).toBe(1);
    const submissions = (await suite.api.get(`/forms/${form.id}/submissions`)).body;
    expect(submissions.data).toEqual([
      expect.objectContaining({ formId: form.id, consent: 'not_asked', contactId: expect.stringMatching(/^ct_/) }),
    ]);
    expect(submissions.pagination).toMatchObject({ nextCursor: null });

    await suite.api.call('PATCH', `/forms/${form.id}`, { active: false });
    expect((await page(form.id)).status).toBe(404);
    await suite.api.call('PATCH', `/forms/${form.id}`, { active: true });
    await suite.api.call('DELETE', '/apps/forms');
    expect((await page(form.id)).status).toBe(404);
    expect((await page('frm_nothing')).status).toBe(404);
  });

  it('lists the form tools over MCP only while the app is installed, and they work', async () => {
    const mcp = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
    try {
      const names = async () => (await mcp.listTools()).tools.map((t) => t.name);
      expect(await names()).not.toContain('create_form');
      await suite.api.call('PUT', '/apps/forms');
      expect((await names()).filter((n) => n.includes('form')).sort()).toEqual([
        'create_form',
        'delete_form',
        'get_form',
        'list_form_submissions',
        'list_forms',
        'update_form',
      ]);
      const created = await ok(mcp, 'create_form', { name: 'By MCP', tags: ['mcp'] });
      expect(created).toMatchObject({ name: 'By MCP', tags: ['mcp'], submissionCount: 0 });
      expect((await ok(mcp, 'get_form', { formId: created.id })).url).toBe(`${siteUrl()}/forms/${created.id}`);
      expect(await ok(mcp, 'list_form_submissions', { formId: created.id })).toEqual({
        data: [],
        pagination: { nextCursor: null, limit: 25 },
      });
      expect((await ok(mcp, 'update_form', { formId: created.id, active: false })).active).toBe(false);
      expect(await ok(mcp, 'delete_form', { formId: created.id })).toEqual({ deleted: true, formId: created.id });
    } finally {
      await suite.api.call('DELETE', '/apps/forms');
      await mcp.close();
    }
  });
});
