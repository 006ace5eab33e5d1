import { apiClient, newTeam, startTestApi } from '../support/helpers';
import { useApiSuite } from '../support/helpers';
import { mcpClient, ok } from '../support/mcpHelpers';
import { readStream } from '../support/sse';

interface OpenedRoom {
  room: { id: string };
  key: string;
  keyId: string;
  expiresAt: string;
  streamUrl: string;
}

/**
 * Room keys expire and can be revoked (docs/AGENTS.md › Room keys): an open stream whose key
 * expires or is revoked ends within seconds with a `closed` event, and its next connect is 401.
 */
describe('room keys: expiry and revocation', () => {
  const suite = useApiSuite('room-keys');

  const openRoom = async (name: string): Promise<OpenedRoom> => {
    const res = await suite.api.post('/rooms', { name });
    expect([200, 201]).toContain(res.status);
    return res.body;
  };

  /** Follows a stream until the server ends it; answers its events and how long it stayed open. */
  const followUntilClosed = (streamUrl: string, timeoutMs = 15_000) => {
    const started = Date.now();
    return readStream(streamUrl, { timeoutMs }).then((read) => ({ ...read, openMs: Date.now() - started }));
  };

  const expectRefused = async (streamUrl: string) => {
    const again = await readStream(streamUrl, { timeoutMs: 5_000 });
    expect(again.status).toBe(401);
    expect(JSON.parse(again.raw).error.code).toBe('unauthorized');
  };

  it('a key expires after ROOM_KEY_TTL_SECONDS (default 7 days); its open stream ends and its next connect is 401', async () => {
    const opened = await openRoom('expiry-default');
    expect(opened.keyId).toMatch(/^rk_/);
    const ttl = Date.parse(opened.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(7 * 24 * 3600 * 1000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);

    // An API whose keys live 2 s: its stream ends within seconds of the expiry (the 5 s recheck).
    const shortLived = await startTestApi(suite.db, { ROOM_KEY_TTL_SECONDS: '2' });
    try {
      const api = apiClient(shortLived.baseUrl, suite.team);
      const res = await api.post('/rooms', { name: 'expiry-short' });
      expect(res.status).toBe(201);
      const short: OpenedRoom = res.body;
      expect(Date.parse(short.expiresAt) - Date.now()).toBeLessThanOrEqual(2_000);
      const read = await followUntilClosed(short.streamUrl);
      expect(read.status).toBe(200);
      expect(read.openMs).toBeLessThan(2_000 + 5_000 + 1_500);
      expect(read.events.at(-1)).toMatchObject({ type: 'closed', data: { reason: 'key_expired' } });
      await expectRefused(short.streamUrl);
      const keys = await api.get(`/rooms/${short.room.id}/keys`);
      expect(keys.body.data).toEqual([expect.objectContaining({ id: short.keyId, status: 'expired' })]);
    } finally {
      await shortLived.close();
    }
  });

  it('revoking a key over HTTP ends its open stream within seconds; other keys of the room still open it', async () => {
    const first = await openRoom('revoke-http');
    const second = await openRoom('revoke-http');
    expect(second.room.id).toBe(first.room.id);

    const following = followUntilClosed(first.streamUrl);
    const other = followUntilClosed(second.streamUrl, 4_000);
    await new Promise((r) => setTimeout(r, 500));
    const revokedAt = Date.now();
    const revoked = await suite.api.call('DELETE', `/rooms/${first.room.id}/keys/${first.keyId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: first.keyId, roomId: first.room.id, status: 'revoked' });
    const read = await following;
    expect(read.events.at(-1)).toMatchObject({ type: 'closed', data: { reason: 'key_revoked' } });
    // Woken by the revocation's notification: well within the 5 s recheck.
    expect(Date.now() - revokedAt).toBeLessThan(3_000);
    await expectRefused(first.streamUrl);

    // The other key's stream stayed open until its reader left.
    const stayed = await other;
    expect(stayed.status).toBe(200);
    expect(stayed.events.some((e) => e.type === 'closed')).toBe(false);
    expect((await readStream(second.streamUrl, { maxBytes: 1, timeoutMs: 5_000 })).status).toBe(200);

    // Listing shows both, newest first, never the key; revoking again is harmless.
    const keys = await suite.api.get(`/rooms/${first.room.id}/keys`);
    expect(keys.status).toBe(200);
    const statuses = Object.fromEntries(keys.body.data.map((k: any) => [k.id, k.status]));
    expect(statuses).toMatchObject({ [first.keyId]: 'revoked', [second.keyId]: 'active' });
    expect(JSON.stringify(keys.body)).not.toContain(first.key);
    expect((await suite.api.get(`/rooms/${first.room.id}/keys?status=active`)).body.data.map((k: any) => k.id)).toEqual(
      [second.keyId],
    );
    expect((await suite.api.call('DELETE', `/rooms/${first.room.id}/keys/${first.keyId}`)).body.status).toBe('revoked');
    expect((await suite.api.call('DELETE', `/rooms/${first.room.id}/keys/rk_nope`)).status).toBe(404);

    // Another team sees neither the room's keys nor can revoke them.
    const stranger = apiClient(suite.server.baseUrl, await newTeam(suite.db, 'room-keys-other'));
    expect((await stranger.get(`/rooms/${first.room.id}/keys`)).status).toBe(404);
    expect((await stranger.call('DELETE', `/rooms/${first.room.id}/keys`)).status).toBe(404);
  });

  it('revoking every key of a room over HTTP ends all its streams', async () => {
    const a = await openRoom('revoke-all');
    const b = await openRoom('revoke-all');
    const reads = [followUntilClosed(a.streamUrl), followUntilClosed(b.streamUrl)];
    await new Promise((r) => setTimeout(r, 500));
    const res = await suite.api.call('DELETE', `/rooms/${a.room.id}/keys`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: 2 });
    for (const read of await Promise.all(reads)) {
      expect(read.openMs).toBeLessThan(3_500);
      expect(read.events.at(-1)).toMatchObject({ type: 'closed', data: { reason: 'key_revoked' } });
    }
    await expectRefused(a.streamUrl);
    await expectRefused(b.streamUrl);
  });

  it('over MCP: POST /mcp/rooms says keyId and expiresAt; revoke_room_keys ends the open stream, next connect 401', async () => {
    const origin = new URL(suite.server.baseUrl).origin;
    const res = await fetch(`${origin}/mcp/rooms`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${suite.team.token}`,
        'x-team-slug': suite.team.slug,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'revoke-mcp' }),
    });
    expect(res.status).toBe(201);
    const opened = (await res.json()) as OpenedRoom;
    expect(opened.keyId).toMatch(/^rk_/);
    expect(Date.parse(opened.expiresAt)).toBeGreaterThan(Date.now());

    const client = await mcpClient(`${origin}/mcp/agents/${suite.team.agentId}`, suite.team.token, {
      'x-team-slug': suite.team.slug,
    });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['list_room_keys', 'revoke_room_keys']));
      const listed = await ok(client, 'list_room_keys', { roomId: opened.room.id });
      expect(listed.data).toEqual([expect.objectContaining({ id: opened.keyId, status: 'active' })]);

      const following = followUntilClosed(opened.streamUrl);
      await new Promise((r) => setTimeout(r, 500));
      const one = await ok(client, 'revoke_room_keys', { roomId: opened.room.id, keyId: opened.keyId });
      expect(one).toMatchObject({ id: opened.keyId, status: 'revoked' });
      const read = await following;
      expect(read.openMs).toBeLessThan(3_500);
      expect(read.events.at(-1)).toMatchObject({ type: 'closed', data: { reason: 'key_revoked' } });
      await expectRefused(opened.streamUrl);

      // Without keyId: every active key of the room.
      const again = (await suite.api.post('/rooms', { roomId: opened.room.id })).body as OpenedRoom;
      const second = followUntilClosed(again.streamUrl);
      await new Promise((r) => setTimeout(r, 500));
      expect(await ok(client, 'revoke_room_keys', { roomId: opened.room.id })).toEqual({ revoked: 1 });
      expect((await second).events.at(-1)).toMatchObject({ type: 'closed', data: { reason: 'key_revoked' } });
      await expectRefused(again.streamUrl);
    } finally {
      await client.close();
    }
  });
});
