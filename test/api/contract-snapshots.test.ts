import fs from 'node:fs';
import path from 'node:path';
import { APPS } from '../../services/agents/apps';
import { useApiSuite } from '../support/helpers';
import { mcpClient } from '../support/mcpHelpers';

/**
 * What clients are promised, byte for byte: the OpenAPI document and the MCP `tools/list` catalog
 * with every app installed, against the snapshots in test/api/snapshots/. A refactor of how
 * operations are declared (issue 36) must leave both unchanged; a deliberate change to the API
 * rewrites them with `UPDATE_SNAPSHOTS=1 npx jest test/api/contract-snapshots.test.ts`, and the
 * diff shows in review.
 */
describe('the API and tool contracts, against their snapshots', () => {
  const suite = useApiSuite('snapshots');
  const dir = path.join(__dirname, 'snapshots');
  /** The server's own address varies from run to run; the snapshot names a fixed one. */
  const portable = (text: string) => text.replaceAll(new URL(suite.server.baseUrl).origin, 'http://api.test');

  function matches(file: string, value: unknown): void {
    const text = portable(`${JSON.stringify(value, null, 2)}\n`);
    const where = path.join(dir, file);
    if (process.env.UPDATE_SNAPSHOTS) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(where, text);
    }
    expect(text).toBe(fs.readFileSync(where, 'utf8'));
  }

  it('GET /v1/openapi.json is the snapshot', async () => {
    const res = await fetch(`${suite.server.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    matches('openapi.json', await res.json());
  });

  it('tools/list with every app installed is the snapshot', async () => {
    for (const app of Object.keys(APPS)) expect((await suite.api.call('PUT', `/apps/${app}`)).status).toBe(200);
    const client = await mcpClient(suite.server.ctx.config.mcpEndpoint, suite.team.token);
    try {
      const { tools } = await client.listTools();
      matches(
        'tools-list.json',
        [...tools].sort((a, b) => a.name.localeCompare(b.name)),
      );
    } finally {
      await client.close();
    }
  });
});
