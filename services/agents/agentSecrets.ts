import { z } from 'zod';
import type { Db } from '../../db/knex';
import { findAgent } from './agents';
import { notFound } from '../platform/errors';
import type { SecretBox } from '../platform/secretBox';
import { offsetPage, Page, PageQuery, pageOffset } from '../platform/pagination';

/**
 * An agent's secrets (API keys of the services its warps call). Values are sealed with
 * SECRETS_KEY and never leave the server: every answer carries keys and status only.
 */
export const secretKeySchema = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'UPPER_SNAKE_CASE, at most 64 characters (e.g. STRIPE_API_KEY)');
export const secretSetSchema = z.strictObject({ key: secretKeySchema, value: z.string().min(1).max(10_000) });
export const secretKeyInputSchema = z.strictObject({ key: secretKeySchema });

export const secretStatusSchema = z.object({
  key: z.string(),
  set: z.boolean(),
  updatedAt: z.iso.datetime().nullable(),
});
export type SecretStatus = z.infer<typeof secretStatusSchema>;

async function agentOf(db: Db, teamId: string, agentId: string) {
  const agent = await findAgent(db, teamId, agentId);
  if (!agent) throw notFound('Agent');
  return agent;
}

/** The agent's secrets by key, a page at a time. */
export async function listSecrets(
  db: Db,
  teamId: string,
  agentId: string,
  page: PageQuery,
): Promise<Page<SecretStatus>> {
  await agentOf(db, teamId, agentId);
  const offset = pageOffset(page);
  const rows: { key: string; updated_at: Date }[] = await db('agent_secrets')
    .where({ team_id: teamId, agent_id: agentId })
    .orderBy('key')
    .offset(offset)
    .limit(page.limit + 1)
    .select('key', 'updated_at');
  return offsetPage(rows, offset, page.limit, (r) => ({
    key: r.key,
    set: true,
    updatedAt: r.updated_at.toISOString(),
  }));
}

export async function secretStatus(db: Db, teamId: string, agentId: string, key: string): Promise<SecretStatus> {
  await agentOf(db, teamId, agentId);
  const row = await db('agent_secrets').where({ team_id: teamId, agent_id: agentId, key }).first('updated_at');
  return { key, set: Boolean(row), updatedAt: row?.updated_at.toISOString() ?? null };
}

export async function setSecret(
  db: Db,
  box: SecretBox,
  teamId: string,
  agentId: string,
  input: z.infer<typeof secretSetSchema>,
  userId: string | null,
): Promise<SecretStatus> {
  await agentOf(db, teamId, agentId);
  const sealed = box.encrypt(input.value);
  const [row] = await db('agent_secrets')
    .insert({ team_id: teamId, agent_id: agentId, key: input.key, value_sealed: sealed, updated_by: userId })
    .onConflict(['agent_id', 'key'])
    .merge({ value_sealed: sealed, updated_by: userId, updated_at: db.fn.now() })
    .returning(['key', 'updated_at']);
  return { key: row.key, set: true, updatedAt: row.updated_at.toISOString() };
}

/** Idempotent: clearing a key that is not set answers its (unset) status. */
export async function clearSecret(db: Db, teamId: string, agentId: string, key: string): Promise<SecretStatus> {
  await agentOf(db, teamId, agentId);
  await db('agent_secrets').where({ team_id: teamId, agent_id: agentId, key }).delete();
  return { key, set: false, updatedAt: null };
}

/** The secret that holds the key of the agent's own model server. */
export const MODEL_API_KEY = 'AI_API_KEY';

/** A secret's value, for the server's own use (the key of the agent's model): never answered to a client. */
export async function secretValue(
  db: Db,
  box: SecretBox,
  teamId: string,
  agentId: string,
  key: string,
): Promise<string | null> {
  const row = await db('agent_secrets').where({ team_id: teamId, agent_id: agentId, key }).first('value_sealed');
  return row ? box.decrypt<string>(row.value_sealed) : null;
}
