import { FakeModelServer, startModelServer } from '../fakes/modelServer';
import { apiClient, newTeam, useApiSuite } from '../support/helpers';
import { consoleFetch, expectPageIsClean, PHONE, scrollsSideways, textWhen, useConsoleSuite } from './consoleBrowser';

const MODEL_KEY = 'sk-console-walkthrough';

/**
 * The model part of the README's agent walk-through, in the console: the agent's
 * OpenAI-compatible model and its key (the secret AI_API_KEY) set on the Agents page, then a room
 * where the reply streams from that model. The fake model server refuses any other key, so the
 * reply on the page proves the key the person typed is the one the turn used.
 */
describe('console: an agent’s model and secrets', () => {
  const suite = useApiSuite('console-model');
  const browser = useConsoleSuite(suite);
  let model: FakeModelServer;

  beforeAll(async () => {
    model = await startModelServer({ requireApiKey: MODEL_KEY });
  });
  afterAll(async () => {
    await model?.close();
  });

  it('model and AI_API_KEY set on Agents; a room message is answered by that model; the key is never shown', async () => {
    const { page, complaints } = await browser.signedIn('/app/agents', PHONE);
    await page.getByRole('button', { name: 'Model and secrets of Assistant' }).click();
    await page.getByLabel(/^OpenAI-compatible base URL/).fill(model.url);
    await page.getByLabel('Model name').fill('fake-model');
    await page.getByRole('button', { name: 'Save model' }).click();
    expect(await textWhen(page.locator('#agent-settings form .outcome').first(), /Saved|\(/)).toMatch(/^Saved\./);
    const agents = (await suite.api.get('/agents')).body.data;
    expect(agents.find((a: any) => a.uuid === suite.team.agentId).model).toEqual({
      baseUrl: model.url,
      name: 'fake-model',
    });
    await textWhen(page.locator(`article[data-id="${suite.team.agentId}"]`), /fake-model/);

    await page.getByLabel(/^Key \(UPPER_SNAKE_CASE/).fill('AI_API_KEY');
    await page.getByLabel(/^Value \(stored encrypted/).fill(MODEL_KEY);
    await page.getByRole('button', { name: 'Set secret' }).click();
    expect(await textWhen(page.locator('#agent-secrets tr[data-key="AI_API_KEY"]'), /yes/)).toMatch(
      /^AI_API_KEY\s+yes/,
    );
    const secrets = (await suite.api.get(`/agents/${suite.team.agentId}/secrets`)).body;
    expect(secrets.data).toEqual([expect.objectContaining({ key: 'AI_API_KEY', set: true })]);
    expect(JSON.stringify(secrets)).not.toContain(MODEL_KEY);
    expect(await page.locator('body').innerText()).not.toContain(MODEL_KEY);
    expect(await scrollsSideways(page)).toBe(false);
    await expectPageIsClean(page, complaints, 'console-70-agent-model-phone');

    // A room with the agent: the reply streams from the model the page set, with the key it set.
    model.script({ chunks: ['Hello from ', 'the model ', 'you set.'] });
    await page.getByRole('link', { name: 'Rooms' }).click();
    await page.getByLabel('New room').fill('model check');
    await Promise.all([page.waitForURL(/\/app\/rooms\/.+/), page.getByRole('button', { name: 'Open' }).click()]);
    await textWhen(page.locator('#stream-state'), /live/);
    await page.getByLabel('Message').fill('Hello?');
    await page.getByRole('button', { name: 'Send' }).click();
    expect(await textWhen(page.locator('#stream .event.assistant'), /you set/)).toContain(
      'Hello from the model you set.',
    );
    const asked = model.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(asked).toHaveLength(1);
    expect(asked[0].body.model).toBe('fake-model');
    expect(asked[0].headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
    await expectPageIsClean(page, complaints, 'console-71-room-with-model-phone');

    // Cleared from the console: the secret is gone through the API too.
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'Model and secrets of Assistant' }).click();
    await page.getByRole('button', { name: 'Clear AI_API_KEY' }).click();
    await textWhen(page.locator('#agent-secrets'), /No secrets/);
    expect((await suite.api.get(`/agents/${suite.team.agentId}/secrets`)).body.data).toEqual([]);

    // Another team's agent: its secrets and model are not found through the console.
    const other = await newTeam(suite.db, 'console-model-other');
    for (const [method, path, body] of [
      ['GET', `/agents/${other.agentId}/secrets`, undefined],
      ['PUT', `/agents/${other.agentId}/secrets/AI_API_KEY`, { value: 'x' }],
      ['PATCH', `/agents/${other.agentId}`, { model: { name: 'mine' } }],
    ] as const) {
      const res = await consoleFetch(page, method, path, body);
      expect([path, res.status, res.body?.error?.code]).toEqual([path, 404, 'not_found']);
    }
    const theirs = (await apiClient(suite.server.baseUrl, other).get('/agents')).body.data;
    expect(theirs.find((a: any) => a.uuid === other.agentId).model.name).toBeNull();
  });
});
