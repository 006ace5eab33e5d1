import type { Page } from 'playwright-core';
import type { Db } from '../../db/knex';
import type { RunningServer } from '../../server';
import { apiClient, ApiClient, newTeam, sleep, startTestApi, testDb, TestTeam } from '../support/helpers';
import { readStream } from '../support/sse';
import { startModelServer } from '../fakes/modelServer';
import {
  DESKTOP,
  expectPageIsClean,
  PHONE,
  screenshot,
  scrollsSideways,
  signInTo,
  textWhen,
  useConsoleSuite,
} from './consoleBrowser';

const OFFLINE_REPLY = 'No model is configured for this agent, so this is a fixed reply';

/**
 * Rooms in the console, in Chromium: the list, a room's stream followed live (the SSE endpoint),
 * a message sent from the page, tool calls and an approval inline, and the stream followed
 * through a restart of the API it streams from (EventSource reconnects with Last-Event-ID).
 * The agent has no model: the offline default answers, and runs `/call` commands.
 */
describe('console: rooms and their live stream', () => {
  let db: Db;
  /** The API the browser talks to; restarted on the same port in the reconnect test. */
  let server: RunningServer & { baseUrl: string };
  /** A second API process on the same database: where the work goes on while the first is down. */
  let other: RunningServer & { baseUrl: string };
  let team: TestTeam;
  let api: ApiClient;

  beforeAll(async () => {
    db = testDb();
    server = await startTestApi(db);
    other = await startTestApi(db);
    team = await newTeam(db, 'console-rooms');
    api = apiClient(server.baseUrl, team);
    expect((await api.call('PATCH', `/agents/${team.agentId}`, { name: 'Desk Helper' })).status).toBe(200);
  });
  afterAll(async () => {
    await other?.close();
    await server?.close();
    await db?.destroy();
  });
  // After the beforeAll above: it reads the servers and the team that one made.
  const browser = useConsoleSuite(() => ({ db, team, server }));

  /**
   * The room's events as the page shows them: sequence numbers in order, and their types. A running
   * turn's Cancel line and a retention gap's line are not events of the room: they carry no sequence.
   */
  const shownEvents = (page: Page) =>
    page
      .locator('#stream .event[data-seq]')
      .evaluateAll((els) =>
        els.map((el) => ({ seq: Number(el.getAttribute('data-seq')), type: el.getAttribute('data-type') })),
      );

  async function send(page: Page, message: string) {
    await page.getByLabel('Message').fill(message);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  it('lists rooms, follows one live, sends messages, shows tool calls and approves a tool call inline; another team’s room is not found', async () => {
    const opened = (await api.post('/rooms', { name: 'support desk' })).body;
    const opened2 = (await api.post('/rooms', { name: 'billing' })).body;
    expect(opened.created && opened2.created).toBe(true);

    const { page, complaints } = await browser.signedIn('/app/rooms', DESKTOP);
    const table = page.locator('table');
    await textWhen(table, /support desk/);
    expect(await table.innerText()).toContain('billing');
    expect(await table.innerText()).toContain('Desk Helper');
    await expectPageIsClean(page, complaints, 'console-10-rooms-list');

    await Promise.all([
      page.waitForURL((url) => url.pathname === `/app/rooms/${opened.room.id}`),
      page.getByRole('link', { name: 'support desk' }).click(),
    ]);
    expect(await textWhen(page.getByRole('heading', { level: 1 }), /Room: /)).toBe('Room: support desk');
    await textWhen(page.locator('#stream-state'), /live/);

    await send(page, 'Hello there');
    const stream = page.locator('#stream');
    expect(await textWhen(stream, new RegExp(OFFLINE_REPLY))).toContain('You: Hello there');
    await textWhen(stream, /Turn completed/);

    // A tool command: the call and its result appear in the stream as they happen.
    await send(page, '/call list_rooms {}');
    const toolText = await textWhen(stream, /Tool list_rooms\s+succeeded/);
    expect(toolText).toContain('Tool call list_rooms {}');

    // In manual mode a sensitive tool call waits for a person: Approve in the stream itself.
    await api.call('PUT', `/agents/${team.agentId}/secrets/OLD_KEY`, { value: 'to be cleared' });
    await api.call('PATCH', `/agents/${team.agentId}`, { mode: 'manual' });
    await send(page, '/call secret_clear {"key":"OLD_KEY"}');
    const approval = page.locator('#stream .event.approval').first();
    expect(await textWhen(approval, /Approval needed/)).toContain('secret_clear');
    await expectPageIsClean(page, complaints, 'console-11-room-approval');
    await approval.getByRole('button', { name: 'Approve' }).click();
    await textWhen(stream, /Tool secret_clear\s+succeeded/);
    await textWhen(stream, /Approval\s+succeeded/);
    const secrets = (await api.get(`/agents/${team.agentId}/secrets`)).body.data;
    expect(secrets.map((s: any) => s.key)).not.toContain('OLD_KEY');
    await api.call('PATCH', `/agents/${team.agentId}`, { mode: 'auto' });

    // The approved call's turn goes on after the approval (its reply, turn.completed): the page is
    // compared with the room only once that turn has ended, the third "Turn completed". Compared while
    // it ran, the room's last id could move between two readings, and its Cancel line was still up.
    await textWhen(stream, /Turn completed[\s\S]*Turn completed[\s\S]*Turn completed/);
    // turn.completed is the room's last event: the page must have it, and every event before it.
    const roomLast = (await api.get('/rooms?limit=100')).body.data.find((r: any) => r.id === opened.room.id)
      .lastEventId as number;
    const shownLast = Number(await page.locator('#last-event').innerText());
    expect(shownLast).toBe(roomLast);
    expect(Number(await page.locator('#events-received').innerText())).toBe(roomLast);
    // Every event once, in order; every turn has completed, so no Cancel line is left.
    const seqs = (await shownEvents(page)).map((e) => e.seq);
    expect(seqs.length).toBeGreaterThan(10);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await page.locator('#stream [data-cancels]').count()).toBe(0);

    // Another team's room: the console answers not found, and opens no stream.
    const stranger = await newTeam(db, 'console-rooms-other');
    const theirs = (await apiClient(server.baseUrl, stranger).post('/rooms', { name: 'private' })).body;
    await page.goto(`${server.url}/app/rooms/${theirs.room.id}`);
    expect(await textWhen(page.getByRole('alert'), /not found/)).toBe('Room not found.');
    expect(await page.locator('#stream').count()).toBe(0);
  });

  it('Revoke keys on the Rooms page ends the room’s open streams; the room page carries on with a fresh key', async () => {
    const opened = (await api.post('/rooms', { name: 'revocable' })).body;
    const { page: roomPage } = await browser.signedIn(`/app/rooms/${opened.room.id}`, DESKTOP);
    await textWhen(roomPage.locator('#stream-state'), /live/);
    const outside = readStream(opened.streamUrl, { timeoutMs: 15_000 });
    await sleep(300);

    const { page, complaints } = await browser.signedIn('/app/rooms', DESKTOP);
    const row = page.locator('tr', { hasText: 'revocable' });
    await row.getByRole('button', { name: 'Revoke keys' }).click();
    expect(await textWhen(row.getByRole('status'), /revoked/)).toBe(' revoked 2 keys');
    await expectPageIsClean(page, complaints, 'console-13-rooms-revoke-keys');
    const ended = await outside;
    expect(ended.events.at(-1)).toMatchObject({ type: 'closed', data: { reason: 'key_revoked' } });
    expect((await readStream(opened.streamUrl, { timeoutMs: 5_000 })).status).toBe(401);

    // The room page's own stream ended too: it took a fresh key and follows the room again.
    await textWhen(roomPage.locator('#stream-state'), /live/);
    await send(roomPage, 'After the revocation');
    await textWhen(roomPage.locator('#stream'), /You: After the revocation/);
  });

  it('follows the stream through a restart of the API: the events written meanwhile arrive once, after Last-Event-ID', async () => {
    const opened = (await api.post('/rooms', { name: 'reconnects' })).body;
    const { page, complaints } = await browser.open(PHONE);
    // Every request of the stream, with the headers the browser's network stack actually sent.
    const streamRequests: Promise<string | undefined>[] = [];
    page.on('request', (req) => {
      if (req.url().includes(`/agents/stream/${opened.room.id}`))
        streamRequests.push(req.allHeaders().then((headers) => headers['last-event-id']));
    });
    await signInTo(page, server.url, `/app/rooms/${opened.room.id}`, browser.owner);
    await textWhen(page.locator('#stream-state'), /live/);
    await send(page, 'Before the restart');
    const stream = page.locator('#stream');
    await textWhen(stream, /Turn completed/);
    const before = await shownEvents(page);
    const lastBefore = before[before.length - 1].seq;
    expect(Number(await page.locator('#last-event').innerText())).toBe(lastBefore);

    // The API the browser streams from goes away; the conversation goes on through another one.
    const port = new URL(server.url).port;
    await server.close();
    await textWhen(page.locator('#stream-state'), /reconnecting/);
    const during = await apiClient(other.baseUrl, team).post(`/agents/${team.agentId}/messages`, {
      message: 'Said while the first API was down',
      roomId: opened.room.id,
    });
    expect(during.status).toBe(200);
    expect(during.body.reply).toContain(OFFLINE_REPLY);

    // The same address comes back: the page resumes after the last event it had.
    server = await startTestApi(db, {
      PORT: port,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      BASE_URL: `http://127.0.0.1:${port}/v1`,
    });
    expect(await textWhen(stream, /Said while the first API was down/)).toContain('Before the restart');
    await textWhen(page.locator('#stream-state'), /live/);
    const sentIds = await Promise.all(streamRequests);
    // The first connection starts from the beginning; the reconnect names the last event the page had.
    expect(sentIds[0]).toBeUndefined();
    expect(sentIds.slice(1)).toContain(String(lastBefore));
    expect(Number(await page.locator('#reconnects').innerText())).toBeGreaterThan(0);

    // The whole room's log, each event exactly once and contiguous: nothing missed, nothing twice.
    const ordered = (await api.get(`/rooms/${opened.room.id}/messages?limit=50`)).body.data;
    expect(ordered.filter((m: any) => m.role === 'user').map((m: any) => m.content)).toEqual([
      'Before the restart',
      'Said while the first API was down',
    ]);
    await textWhen(stream, /Turn completed[\s\S]*Turn completed/);
    const lastEventId = (await api.get('/rooms?limit=100')).body.data.find((r: any) => r.id === opened.room.id)
      .lastEventId as number;
    // The room's sequence is gapless from 1: the page handled each id once, and none is missing.
    expect(Number(await page.locator('#last-event').innerText())).toBe(lastEventId);
    expect(Number(await page.locator('#events-received').innerText())).toBe(lastEventId);
    const after = await shownEvents(page);
    expect(new Set(after.map((e) => e.seq)).size).toBe(after.length);
    expect(after.filter((e) => e.type === 'message.created').length).toBe(4);
    expect(await scrollsSideways(page)).toBe(false);
    // While the API was down the browser reported the failed connection; nothing else.
    const others = complaints.filter(
      (c) => !/ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_INCOMPLETE_CHUNKED/.test(c),
    );
    await expectPageIsClean(page, others, 'console-12-room-after-reconnect-phone');
    await screenshot(page, 'console-12-room-after-reconnect-phone');
  });
  it('a stuck turn is cancelled from its room: the button ends it failed (turn_cancelled), as the API reads it', async () => {
    // A model that takes a minute to say anything: the turn is stuck in its model call.
    const model = await startModelServer();
    try {
      model.script({ text: 'far too late', firstTokenDelayMs: 60_000 });
      const patched = await api.call('PATCH', `/agents/${team.agentId}`, {
        model: { baseUrl: model.url, name: 'slow' },
      });
      expect(patched.status).toBe(200);
      const opened = (await api.post('/rooms', { name: 'stuck desk' })).body;
      const { page, complaints } = await browser.signedIn(`/app/rooms/${opened.room.id}`, PHONE);
      await textWhen(page.locator('#stream-state'), /live/);
      await send(page, 'Think very hard');
      const cancel = page.getByRole('button', { name: 'Cancel turn' });
      await cancel.waitFor();
      await screenshot(page, 'console-13-room-stuck-turn-phone');
      await cancel.click();
      expect(await textWhen(page.locator('#stream'), /Turn failed: turn_cancelled/)).toContain(
        'Turn failed: turn_cancelled',
      );
      expect(await cancel.count()).toBe(0);
      const turns = await db('room_turns').where({ room_id: opened.room.id }).select('id');
      expect(turns).toHaveLength(1);
      expect((await api.get(`/rooms/${opened.room.id}/turns/${turns[0].id}`)).body).toMatchObject({
        status: 'failed',
        error: { error: { code: 'turn_cancelled' } },
      });
      await expectPageIsClean(page, complaints, 'console-13-room-turn-cancelled-phone');
    } finally {
      await api.call('PATCH', `/agents/${team.agentId}`, { model: { baseUrl: null, name: null } });
      await model.close();
    }
  });
});
