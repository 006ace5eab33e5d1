import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { findAgent } from '../agents/agents';
import type { Principal } from '../identity/principal';
import { AppError, notFound } from '../platform/errors';
import { keysetPage, Page, PageQuery } from '../platform/pagination';

/**
 * AGENT_AUTH_KEYs (docs/HOOKS.md › Agent auth keys): the bearer credential of the agent hooks
 * path. A person who administers the team creates one (shown once), lists them by prefix, and
 * revokes them; rotation is a new key, then the old one revoked. Only the sha256 is stored.
 * Agents cannot create them: no MCP tool does, and an OAuth token (an agent's) is refused here.
 */

const ADMIN_ROLES = ['owner', 'admin'];

export const authKeySchema = z.object({
  id: z.string(),
  agentId: z.string(),
  /** The key's first characters (`ak_` and 8), to tell keys apart. */
  prefix: z.string(),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable(),
});
export type AuthKeyJson = z.infer<typeof authKeySchema>;
export const authKeyWithSecretSchema = authKeySchema.extend({
  key: z.string().describe('The AGENT_AUTH_KEY: shown in this response only'),
});

interface AuthKeyRow {
  seq: number;
  id: string;
  agent_id: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
}

const present = (row: AuthKeyRow): AuthKeyJson => ({
  id: row.id,
  agentId: row.agent_id,
  prefix: row.prefix,
  createdAt: row.created_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
});

export const hashAuthKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** A person with admin rights in the team, signed in to the product (an API token): never an agent's credential. */
async function requireAdminPerson(db: Db, teamId: string, principal: Principal): Promise<string> {
  if (principal.kind !== 'api_token')
    throw new AppError('forbidden', 'Agent auth keys are created and revoked by a person: use an API token');
  const membership = await db('memberships').where({ team_id: teamId, user_id: principal.userId }).first('role');
  if (!membership || !ADMIN_ROLES.includes(membership.role))
    throw new AppError('forbidden', "Agent auth keys need a team admin (the team's owner or an admin)", {
      requiredRole: ADMIN_ROLES,
    });
  return principal.userId;
}

async function agentOf(db: Db, teamId: string, agentId: string) {
  const agent = await findAgent(db, teamId, agentId);
  if (!agent) throw notFound('Agent');
  return agent;
}

export async function createAuthKey(
  db: Db,
  teamId: string,
  agentId: string,
  principal: Principal,
): Promise<z.infer<typeof authKeyWithSecretSchema>> {
  await agentOf(db, teamId, agentId);
  const userId = await requireAdminPerson(db, teamId, principal);
  const key = `ak_${randomBytes(32).toString('base64url')}`;
  const [row] = await db('agent_auth_keys')
    .insert({
      id: `aak_${randomBytes(12).toString('hex')}`,
      team_id: teamId,
      agent_id: agentId,
      prefix: key.slice(0, 11),
      key_hash: hashAuthKey(key),
      created_by: userId,
    })
    .returning('*');
  return { ...present(row), key };
}

/** The agent's live keys, newest first (prefixes only), a page at a time. */
export async function listAuthKeys(
  db: Db,
  teamId: string,
  agentId: string,
  page: PageQuery,
): Promise<Page<AuthKeyJson>> {
  await agentOf(db, teamId, agentId);
  const rows = db('agent_auth_keys').where({ team_id: teamId, agent_id: agentId }).whereNull('revoked_at');
  return keysetPage(rows, page, present, { newestFirst: true });
}

export async function revokeAuthKey(
  db: Db,
  teamId: string,
  agentId: string,
  keyId: string,
  principal: Principal,
): Promise<void> {
  await agentOf(db, teamId, agentId);
  await requireAdminPerson(db, teamId, principal);
  const revoked = await db('agent_auth_keys')
    .where({ team_id: teamId, agent_id: agentId, id: keyId })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() });
  if (!revoked) throw notFound('Agent auth key');
}

/** The agent (and its team) a bearer key on the agent hooks path stands for, or null: unknown, revoked or another agent's. */
/** Whether an agent of that id exists (any team's): an unknown one is 404 before its key is judged. */
export async function agentExists(db: Db, agentId: string): Promise<boolean> {
  return /^[0-9a-f-]{36}$/i.test(agentId) && Boolean(await db('agents').where({ id: agentId }).first('id'));
}

export async function agentForKey(
  db: Db,
  agentId: string,
  authorization: string | undefined,
): Promise<{ teamId: string; agentId: string } | null> {
  const match = /^Bearer\s+(ak_[A-Za-z0-9_-]{20,100})\s*$/.exec(authorization ?? '');
  if (!match || !/^[0-9a-f-]{36}$/i.test(agentId)) return null;
  const row = await db('agent_auth_keys')
    .where({ key_hash: hashAuthKey(match[1]), agent_id: agentId })
    .whereNull('revoked_at')
    .first('id', 'team_id', 'agent_id', 'last_used_at');
  if (!row) return null;
  // Touched at most once a minute: a busy runtime does not write on every call.
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > 60_000)
    await db('agent_auth_keys').where({ id: row.id }).update({ last_used_at: db.fn.now() });
  return { teamId: row.team_id, agentId: row.agent_id };
}
