import { validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import { agentSchema } from '../../services/agents/agents';
import { contactSchema } from '../../services/contacts/contacts';
import { errorBodySchema } from '../../services/platform/errors';
import { jobAcceptedSchema, jobSchema } from '../../services/jobs/jobs';
import { pageSchema } from '../../services/platform/pagination';
import { createApp } from '../../api/app';
import { errorCatalog } from '../../services/platform/errorCatalog';
import { useApiSuite, waitForJob } from '../support/helpers';

type Operation = {
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};
type Doc = {
  openapi: string;
  info: { version: string };
  servers: unknown;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

/** `METHOD /path` of every route Express runs under /v1, read from its router stack (`:id` as `{id}`). */
function expressOperations(app: Express): string[] {
  type Layer = {
    rawPath?: unknown;
    handle: { stack?: Layer[] };
    route?: { path: string; methods: Record<string, boolean> };
  };
  const top = (app as unknown as { router: { stack: Layer[] } }).router.stack;
  const v1 = top.find((layer) => layer.rawPath === '/v1' && layer.handle.stack);
  if (!v1) throw new Error('no router mounted at /v1');
  return v1.handle.stack!.flatMap((layer) => {
    if (!layer.route) throw new Error('a non-route layer under /v1: every /v1 route must come from the table');
    const path = layer.route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    return Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${path}`);
  });
}

const documentedOperations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
  );

describe('the description document and the responses it describes', () => {
  const suite = useApiSuite('openapi');
  let doc: Doc;

  beforeAll(async () => {
    const res = await fetch(`${suite.server.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  });

  it('serves OpenAPI 3.1, document version 1.0.0, without a credential, and it validates as OpenAPI 3.1', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers).toEqual([{ url: suite.server.baseUrl }]);
    const result = await validate(structuredClone(doc) as never);
    expect('errors' in result ? result.errors : []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.paths['/contacts'].post.requestBody).toMatchObject({
      content: { 'application/json': { schema: { properties: { email: { format: 'email' } } } } },
    });
    expect(doc.paths['/agents'].get.parameters!.find((p: any) => p.name === 'limit')).toMatchObject({
      schema: { minimum: 1, maximum: 100, default: 25 },
    });
  });

  it('a broken document does not validate (the validator is not a rubber stamp)', async () => {
    const broken = structuredClone(doc) as any;
    broken.paths['/jobs'].post.responses = 'none';
    const result = await validate(broken);
    expect(result.valid).toBe(false);
  });

  it('describes every route Express runs under /v1, and nothing Express does not run', () => {
    const running = expressOperations(createApp(suite.server.ctx));
    expect(running.length).toBeGreaterThan(50);
    expect(new Set(running).size).toBe(running.length);
    expect([...running].sort()).toEqual(documentedOperations(doc).sort());
    expect(running).toEqual(
      expect.arrayContaining([
        'POST /jobs',
        'GET /campaigns/{campaignId}/recipients',
        'POST /media',
        'POST /webhooks/whatsapp',
        'GET /unsubscribe/{contactId}',
        'GET /openapi.json',
      ]),
    );
  });

  it('gives every response of every operation a schema, errors the shared error body with its codes', () => {
    const errorRef = { $ref: '#/components/schemas/Error' };
    expect(doc.components.schemas.Error).toBeDefined();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(op.responses);
        // Anything can fail on our side or find the database down.
        expect({ where, statuses }).toEqual({ where, statuses: expect.arrayContaining(['500', '503']) });
        const gated = (op as { security?: unknown[] }).security?.length;
        if (gated)
          expect({ where, statuses }).toEqual({ where, statuses: expect.arrayContaining(['401', '403', '429']) });
        if (op.parameters?.some((p) => p.in === 'path'))
          expect({ where, statuses }).toEqual({ where, statuses: expect.arrayContaining(['404']) });
        if (op.requestBody)
          expect({ where, statuses }).toEqual({ where, statuses: expect.arrayContaining(['400', '413', '415']) });
        for (const [status, response] of Object.entries(op.responses)) {
          if (status === '204') {
            expect({ where, status, content: response.content }).toEqual({ where, status, content: undefined });
            continue;
          }
          const media = Object.values(response.content ?? {});
          // An error also comes as problem+json when Accept prefers it (the spec's alternative media type).
          const isError = Number(status) >= 400 && !response.content?.['text/html'];
          expect({ where, status, schemas: media.length }).toEqual({ where, status, schemas: isError ? 2 : 1 });
          expect({ where, status, hasSchema: media[0].schema !== undefined }).toEqual({
            where,
            status,
            hasSchema: true,
          });
          if (isError) {
            expect({ where, status, schemas: response.content }).toEqual({
              where,
              status,
              schemas: {
                'application/json': { schema: errorRef },
                'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
              },
            });
            const codes = errorCatalog.filter((e) => e.status === Number(status)).map((e) => e.code);
            expect(codes.length).toBeGreaterThan(0);
            for (const code of codes)
              expect((response as { description: string }).description).toContain(`\`${code}\``);
          }
        }
      }
    }
  });

  it('documents every list with the spec envelope: data and pagination { nextCursor, limit }, both required', () => {
    // A grouped count keyed by its automation, not a list of resources (services/automations).
    const notLists = ['GET /automations/{automationId}/step-counts'];
    const lists: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      const schema = ops.get?.responses['200']?.content?.['application/json']?.schema as
        { properties?: Record<string, any>; required?: string[] } | undefined;
      if (schema?.properties?.data?.type !== 'array' || notLists.includes(`GET ${path}`)) continue;
      lists.push(path);
      expect({ path, required: schema.required }).toEqual({
        path,
        required: expect.arrayContaining(['data', 'pagination']),
      });
      expect({ path, pagination: schema.properties.pagination }).toMatchObject({
        path,
        pagination: { required: ['nextCursor', 'limit'] },
      });
    }
    expect(lists).toEqual(
      expect.arrayContaining([
        '/agents/{agentId}/integrations',
        '/agents/{agentId}/secrets',
        '/apps',
        '/agents/{agentId}/auth-keys',
        '/agents/{agentId}/memories',
        '/webhooks/endpoints/{endpointId}/deliveries/{deliveryId}/attempts',
      ]),
    );
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

  it('each answer, success or error, matches the schema the document gives for its operation and status', async () => {
    const { api } = suite;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const check = (method: string, path: string, res: { status: number; body: unknown; headers: Headers }) => {
      const response = doc.paths[path]?.[method]?.responses[String(res.status)];
      expect({
        operation: `${method.toUpperCase()} ${path}`,
        status: res.status,
        documented: response !== undefined,
      }).toEqual({ operation: `${method.toUpperCase()} ${path}`, status: res.status, documented: true });
      if (res.status === 204) return;
      const schema = JSON.parse(
        JSON.stringify(response.content!['application/json'].schema).replace(/"#\/components/g, '"doc#/components'),
      );
      const valid = ajv.validate(schema, res.body);
      expect({ operation: `${method.toUpperCase()} ${path} ${res.status}`, errors: ajv.errors ?? null }).toEqual({
        operation: `${method.toUpperCase()} ${path} ${res.status}`,
        errors: null,
      });
      expect(valid).toBe(true);
      if ((response as { headers?: Record<string, unknown> }).headers?.location)
        expect(res.headers.get('location')).toMatch(/^http/);
    };

    const contact = await api.post('/contacts', {
      name: 'Shape Checked',
      email: `shape.${Date.now()}@example.com`,
      marketingConsent: 'granted',
    });
    check('post', '/contacts', contact);
    check('post', '/contacts', await api.post('/contacts', { name: 'Dup', email: contact.body.email }));
    check('post', '/contacts', await api.post('/contacts', { name: 42 }));
    check('post', '/contacts', await api.call('POST', '/contacts', 'name=x', { 'content-type': 'text/plain' }));
    check('get', '/contacts/{contactId}', await api.get(`/contacts/${contact.body.id}`));
    check('get', '/contacts/{contactId}', await api.get('/contacts/nobody'));
    check(
      'post',
      '/contacts/{contactId}/orders',
      await api.post(`/contacts/${contact.body.id}/orders`, { amount: 12.5 }),
    );
    check('post', '/jobs', await api.post('/jobs', { type: 'contacts.export' }));
    check('get', '/jobs', await api.get('/jobs?status=nope'));
    check(
      'get',
      '/agents',
      await fetch(`${suite.server.baseUrl}/agents`).then(async (r) => ({
        status: r.status,
        headers: r.headers,
        body: await r.json(),
      })),
    );
    check('post', '/artifacts', await api.post('/artifacts', { title: 'x', media: ['med_unknown'] }));
    const segment = await api.post('/segments', {
      name: 'All granted',
      groups: [{ match: 'all', conditions: [{ type: 'tag', value: 'nobody-has-this' }] }],
    });
    check('post', '/segments', segment);
    expect(segment.status).toBe(201);
    check('delete', '/segments/{segmentId}', await api.call('DELETE', `/segments/${segment.body.id}`));
    const campaign = await api.post('/campaigns', {
      name: 'Shapes',
      channel: 'email',
      subject: 'Hi',
      content: 'Hello',
      contactIds: [contact.body.id],
    });
    check('post', '/campaigns', campaign);
    expect(campaign.status).toBe(201);
    check('get', '/campaigns/{campaignId}/stats', await api.get(`/campaigns/${campaign.body.id}/stats`));
    check('get', '/campaigns/{campaignId}/recipients', await api.get(`/campaigns/${campaign.body.id}/recipients`));
    check(
      'post',
      '/campaigns/audience-preview',
      await api.post('/campaigns/audience-preview', { campaignId: campaign.body.id }),
    );
    check('post', '/campaigns/{campaignId}/retry', await api.post(`/campaigns/${campaign.body.id}/retry`, {}));
    check('get', '/team', await api.get('/team'));
    check('get', '/credits', await api.get('/credits'));
    check('get', '/openapi.json', { status: 200, headers: new Headers(), body: doc });
  });
});
