import { apiClient, ApiClient, newTeam, sleep, TestTeam } from '../support/helpers';
import { useOwnDatabase } from '../support/ownDatabase';

/**
 * Internal hooks across a crash: a database and a task queue of the suite's own, so only the
 * workers it starts (and SIGKILLs) dispatch its events and run its hooks.
 */
describe('internal hooks across a worker crash', () => {
  const taskQueue = `hooks-crash-${process.pid}`;
  const stack = useOwnDatabase('hooks', taskQueue);

  async function createContacts(api: ApiClient, n: number, tag: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await api.post('/contacts', { name: `${tag} ${i}`, email: `${tag}-${i}-${Date.now()}@example.com` });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    return ids;
  }

  it('contact.created runs its internal hook exactly once per contact, across a SIGKILL between the insert and the dispatch', async () => {
    const team: TestTeam = await newTeam(stack.db, 'hk-crash');
    const api = apiClient(stack.server.baseUrl, team);
    const hook = await api.post(`/agents/${team.agentId}/hook-rules`, {
      source: 'internal',
      event: 'contact.created',
      warp: 'artifact-create',
      inputs: { title: 'Welcome pack', type: 'offer' },
      mapping: { contactId: '$.contact.id' },
    });
    expect(hook.status).toBe(201);

    const first = await stack.startWorker();
    const before = await createContacts(api, 3, 'before');
    // Killed as the contacts commit: their events may or may not have been dispatched.
    await first.kill();
    const after = await createContacts(api, 3, 'after');
    // No worker: these contacts committed with their events, and nothing dispatched them.
    const undispatched = await stack.db('platform_events').whereIn('subject', after).whereNull('dispatched_at');
    expect(undispatched).toHaveLength(3);

    // Two workers race for the same outbox rows and hook runs.
    await Promise.all([stack.startWorker(), stack.startWorker()]);
    const ids = [...before, ...after];
    const artifactsOf = async () =>
      stack.db('artifacts').where({ team_id: team.teamId }).whereIn('contact_id', ids).select('contact_id', 'title');
    const deadline = Date.now() + 90_000;
    while ((await artifactsOf()).length < ids.length && Date.now() < deadline) await sleep(250);
    await sleep(2000);

    // What the user checks: one welcome pack per contact, each run recorded once, each a warp execution.
    const artifacts = await artifactsOf();
    expect(artifacts.map((a) => a.contact_id).sort()).toEqual([...ids].sort());
    expect(artifacts.every((a) => a.title === 'Welcome pack')).toBe(true);
    const runs = await stack.db('hook_runs').where({ hook_id: hook.body.hook.id });
    expect(runs).toHaveLength(6);
    expect(runs.every((r) => r.status === 'succeeded' && r.execution_id)).toBe(true);
    expect(
      (
        await stack.db('warp_executions').whereIn(
          'id',
          runs.map((r) => r.execution_id),
        )
      ).map((x) => x.status),
    ).toEqual(Array(6).fill('succeeded'));
  });
});
