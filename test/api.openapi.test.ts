import { agentSchema } from '../services/agents';
import { contactSchema } from '../services/contacts';
import { errorBodySchema } from '../services/errors';
import { jobAcceptedSchema, jobSchema } from '../services/jobs';
import { pageSchema } from '../services/pagination';
import { useApiSuite, waitForJob } from './helpers';

describe('the description document and the responses it describes', () => {
  const suite = useApiSuite('openapi');

  it('serves OpenAPI 1.0.0 for every endpoint, without a credential', async () => {
    const res = await fetch(`${suite.server.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers).toEqual([{ url: suite.server.baseUrl }]);
    expect(Object.keys(doc.paths).sort()).toEqual(['/agents', '/agents/{agentId}', '/agents/{agentId}/integrations', '/agents/{agentId}/integrations/{channel}', '/agents/{agentId}/secrets', '/agents/{agentId}/secrets/{key}', '/api-tokens', '/api-tokens/{tokenId}', '/apps', '/apps/{appSlug}',
      '/artifacts', '/artifacts/deliver', '/artifacts/{artifactId}', '/campaigns', '/campaigns/audience-preview', '/campaigns/{campaignId}',
      '/campaigns/{campaignId}/archive', '/campaigns/{campaignId}/cancel-schedule', '/campaigns/{campaignId}/cancel-send', '/campaigns/{campaignId}/cards', '/campaigns/{campaignId}/recipients',
      '/campaigns/{campaignId}/retry', '/campaigns/{campaignId}/send', '/campaigns/{campaignId}/send-test', '/campaigns/{campaignId}/stats',
      '/campaigns/{campaignId}/unarchive', '/campaigns/{campaignId}/whatsapp/refresh', '/campaigns/{campaignId}/whatsapp/submit', '/contacts', '/contacts/{contactId}', '/contacts/{contactId}/orders', '/credits', '/deliveries', '/jobs', '/jobs/{jobId}', '/media', '/media/{mediaId}', '/media/{mediaId}/content',
      '/outbox', '/segments', '/segments/{segmentId}', '/segments/{segmentId}/contacts', '/team', '/warp-executions/{executionId}', '/warp-executions/{executionId}/approval-link', '/warp-executions/{executionId}/approve',
      '/warp-executions/{executionId}/decline']);
    expect(doc.paths['/contacts'].post.requestBody.content['application/json'].schema.properties.email.format).toBe('email');
    expect(doc.paths['/agents'].get.parameters.find((p: { name: string }) => p.name === 'limit').schema).toMatchObject({ minimum: 1, maximum: 100, default: 25 });
  });

  it('answers with exactly the shapes it documents', async () => {
    const { api } = suite;
    // Strict: a field the document does not name fails too.
    const strictPage = <T extends Parameters<typeof pageSchema>[0]>(item: T) => pageSchema(item).strict();
    expect(strictPage(agentSchema.strict()).safeParse((await api.get('/agents')).body).success).toBe(true);
    const created = await api.post('/contacts', { name: 'Doc Umented', email: 'doc@example.com' });
    expect(contactSchema.strict().safeParse(created.body).error).toBeUndefined();
    expect(strictPage(contactSchema.strict()).safeParse((await api.get('/contacts')).body).error).toBeUndefined();
    const accepted = await api.post('/jobs', { type: 'contacts.export' });
    expect(jobAcceptedSchema.strict().safeParse(accepted.body).error).toBeUndefined();
    const job = await waitForJob(api, accepted.body.jobId);
    expect(jobSchema.strict().safeParse(job).error).toBeUndefined();
    expect(errorBodySchema.strict().safeParse((await api.get('/jobs/job_nope')).body).error).toBeUndefined();
  });
});
