import type { z } from 'zod';
import { jobTypeNames, jobTypes } from '../../services/jobs/jobTypes';
import { useApiSuite } from '../support/helpers';

/**
 * `POST /v1/jobs` documents each job type's `input` as a union keyed by `type` and validates the
 * body by that same schema (issue 38 item 12).
 */
describe('the body of POST /jobs: one input schema per job type', () => {
  const suite = useApiSuite('jobs-body');

  it('the OpenAPI document has a oneOf with a discriminator on type, one variant per job type with its input properties', async () => {
    const doc = (await (await fetch(`${suite.server.baseUrl}/openapi.json`)).json()) as any;
    const body = doc.paths['/jobs'].post.requestBody.content['application/json'].schema;
    expect(body.discriminator.propertyName).toBe('type');
    expect(Object.keys(body.discriminator.mapping).sort()).toEqual([...jobTypeNames].sort());
    expect(body.oneOf).toHaveLength(jobTypeNames.length);
    for (const type of jobTypeNames) {
      const ref: string = body.discriminator.mapping[type];
      expect(body.oneOf).toContainEqual({ $ref: ref });
      const variant = doc.components.schemas[ref.replace('#/components/schemas/', '')];
      expect({ type, literal: variant.properties.type }).toEqual({ type, literal: { type: 'string', enum: [type] } });
      const inputFields = Object.keys((jobTypes[type].schema as z.ZodObject).shape).sort();
      expect({ type, fields: Object.keys(variant.properties.input.properties).sort() }).toEqual({
        type,
        fields: inputFields,
      });
      expect(variant.required).toContain('type');
    }
    const byRef = (type: string) =>
      doc.components.schemas[body.discriminator.mapping[type].replace('#/components/schemas/', '')];
    // An export needs no input; the others do, and say which of their fields are required.
    expect(byRef('contacts.export').required).toEqual(['type']);
    expect(byRef('knowledge.ingest').required).toEqual(['type', 'input']);
    expect(byRef('knowledge.ingest').properties.input.required).toEqual(['agentId', 'title', 'text']);
    expect(byRef('warp.run').properties.input.required).toEqual(['warp']);
    expect(byRef('contacts.import').properties.input.properties.rows.type).toBe('array');
  });

  it.each([
    ['an import with an empty row list', 'input.rows', { type: 'contacts.import', input: { rows: [] } }],
    ['an import without input', 'input', { type: 'contacts.import' }],
    [
      'an ingest without text',
      'input.text',
      { type: 'knowledge.ingest', input: { agentId: crypto.randomUUID(), title: 't' } },
    ],
    [
      'an ingest with a bad agent id',
      'input.agentId',
      { type: 'knowledge.ingest', input: { agentId: 'nope', title: 't', text: 'x' } },
    ],
    [
      'a chunkSize that is not a number',
      'input.chunkSize',
      { type: 'knowledge.ingest', input: { agentId: crypto.randomUUID(), title: 't', text: 'x', chunkSize: 'big' } },
    ],
    ['a warp run without its warp', 'input.warp', { type: 'warp.run', input: { inputs: {} } }],
    ['export tags that are not a list', 'input.tags', { type: 'contacts.export', input: { tags: 'vip' } }],
  ])('%s → 400 validation_error naming %s', async (_label, field, body) => {
    const res = await suite.api.post('/jobs', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(field);
    expect(res.body.error.message).toContain(field);
  });

  it('an unknown option names itself; an unknown type still lists the known ones; a good body is accepted', async () => {
    const unknownOption = await suite.api.post('/jobs', { type: 'contacts.export', input: { format: 'xml' } });
    expect(unknownOption.status).toBe(400);
    expect(unknownOption.body.error.details.issues[0].path).toBe('input');
    expect(unknownOption.body.error.message).toContain('format');
    const unknownType = await suite.api.post('/jobs', { type: 'contacts.teleport', input: {} });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error.details.knownTypes).toEqual(jobTypeNames);
    expect(unknownType.body.error.details.issues[0].path).toBe('type');
    const missingType = await suite.api.post('/jobs', { input: {} });
    expect(missingType.status).toBe(400);
    expect(missingType.body.error.details.issues[0].path).toBe('type');
    const accepted = await suite.api.post('/jobs', { type: 'contacts.export', input: { tags: ['vip'] } });
    expect(accepted.status).toBe(202);
  });
});
