import { z } from 'zod';
import { Channel, channelSchema } from '../../channels/types';
import { providerPools } from '../../channels/pools';
import { providerDefinitions, ProviderName, providerNameSchema, whatsappTemplates } from '../../channels/providers';
import type { ChannelProvider } from '../../channels/types';
import type { Db } from '../../db/knex';
import { findAgent } from './agents';
import { AppError, notFound, validationError } from '../platform/errors';
import type { SecretBox } from '../platform/secretBox';
import { offsetPage, Page, PageQuery, pageOffset } from '../platform/pagination';

export const integrationInputSchema = z.strictObject({
  provider: providerNameSchema,
  /** The provider's settings (base URL, host, account ids); see docs/CHANNELS.md. */
  config: z.record(z.string(), z.unknown()).default({}),
  /** The provider's credentials; stored encrypted, never returned. Omitted: the stored ones stay. */
  secrets: z.record(z.string(), z.string()).optional(),
  /** The sender: an email address, or a phone number for SMS and WhatsApp. */
  from: z.string().trim().min(1).max(300).nullable().optional(),
  /**
   * The provider's published send limit for this account (messages per second), kept exactly across
   * every worker by bulk sends. Null or omitted: the operator's CAMPAIGN_RATE_LIMITS for the provider, else none.
   */
  maxPerSecond: z.number().positive().max(100_000).nullable().optional(),
  active: z.boolean().default(true),
});
export type IntegrationInput = z.infer<typeof integrationInputSchema>;

export const integrationSchema = z.object({
  agentId: z.string(),
  channel: channelSchema,
  provider: providerNameSchema,
  config: z.record(z.string(), z.unknown()),
  from: z.string().nullable(),
  maxPerSecond: z.number().nullable(),
  active: z.boolean(),
  /** Which credentials are stored (their names only). */
  secretsSet: z.array(z.string()),
  updatedAt: z.iso.datetime(),
});
export type IntegrationJson = z.infer<typeof integrationSchema>;

interface IntegrationRow {
  agent_id: string;
  team_id: string;
  channel: Channel;
  provider: ProviderName;
  config: Record<string, unknown>;
  secrets_encrypted: string | null;
  from_address: string | null;
  max_per_second: number | null;
  active: boolean;
  updated_at: Date;
}

function present(row: IntegrationRow, box: SecretBox): IntegrationJson {
  const secrets = row.secrets_encrypted ? box.decrypt<Record<string, string>>(row.secrets_encrypted) : {};
  return {
    agentId: row.agent_id,
    channel: row.channel,
    provider: row.provider,
    config: row.config,
    from: row.from_address,
    maxPerSecond: row.max_per_second,
    active: row.active,
    secretsSet: Object.keys(secrets).sort(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const emailSchema = z.email();
const phoneSchema = z.string().regex(/^\+[1-9]\d{6,14}$/, 'an E.164 phone number such as +15551234567');

/** The sender must be able to send: an agent's inbox address only receives. */
function checkSender(
  channel: Channel,
  provider: ProviderName,
  from: string | null | undefined,
  inboxDomain: string,
): void {
  if (channel === 'email') {
    if (!from) {
      if (provider === 'sandbox') return;
      throw new AppError('sender_required', 'An email integration needs a from address');
    }
    if (!emailSchema.safeParse(from).success)
      throw new AppError('validation_error', 'Invalid body: from: an email address', {
        issues: [{ path: 'from', message: 'invalid email', code: 'invalid_format' }],
      });
    const domain = from.split('@')[1].toLowerCase();
    if (domain === inboxDomain || domain.endsWith(`.${inboxDomain}`)) {
      throw new AppError(
        'inbox_address_not_sender',
        `${from} is an agent inbox on ${inboxDomain}, which only receives; send from another address`,
      );
    }
  } else if (channel !== 'push' && from && !phoneSchema.safeParse(from).success) {
    throw new AppError('validation_error', 'Invalid body: from: an E.164 phone number such as +15551234567', {
      issues: [{ path: 'from', message: 'invalid phone', code: 'invalid_format' }],
    });
  }
}

/** An agent's integrations by channel, a page at a time (one per channel: four at most). */
export async function listIntegrations(
  db: Db,
  box: SecretBox,
  teamId: string,
  agentId: string,
  page: PageQuery,
): Promise<Page<IntegrationJson>> {
  if (!(await findAgent(db, teamId, agentId))) throw notFound('Agent');
  const offset = pageOffset(page);
  const rows: IntegrationRow[] = await db('agent_integrations')
    .where({ team_id: teamId, agent_id: agentId })
    .orderBy('channel')
    .offset(offset)
    .limit(page.limit + 1);
  return offsetPage(rows, offset, page.limit, (row) => present(row, box));
}

/** Sets an agent's integration for one channel (create or replace; the same call twice is the same result). */
export async function setIntegration(
  db: Db,
  box: SecretBox,
  settings: { inboxDomain: string },
  teamId: string,
  agentId: string,
  channelParam: string,
  input: IntegrationInput,
): Promise<IntegrationJson> {
  if (!(await findAgent(db, teamId, agentId))) throw notFound('Agent');
  const channel = channelSchema.safeParse(channelParam);
  if (!channel.success) throw notFound(`Channel ${channelParam}`);
  const definition = providerDefinitions[input.provider];
  if (!(definition.channels as readonly Channel[]).includes(channel.data)) {
    throw new AppError('provider_channel_mismatch', `${input.provider} does not serve ${channel.data}`, {
      supports: definition.channels,
    });
  }
  const config = definition.config.safeParse(input.config);
  if (!config.success) throw prefixed(validationError(config.error, 'body'), 'config');
  checkSender(channel.data, input.provider, input.from, settings.inboxDomain);
  const existing: IntegrationRow | undefined = await db('agent_integrations')
    .where({ agent_id: agentId, channel: channel.data })
    .first();
  const keptSecrets =
    existing?.secrets_encrypted && existing.provider === input.provider
      ? box.decrypt<Record<string, string>>(existing.secrets_encrypted)
      : {};
  const secrets = definition.secrets.safeParse({ ...keptSecrets, ...input.secrets });
  if (!secrets.success) throw prefixed(validationError(secrets.error, 'body'), 'secrets');
  const values = {
    team_id: teamId,
    provider: input.provider,
    config: JSON.stringify(config.data),
    secrets_encrypted: Object.keys(secrets.data).length ? box.encrypt(secrets.data) : null,
    from_address: input.from ?? null,
    max_per_second: input.maxPerSecond ?? null,
    active: input.active,
    updated_at: db.fn.now(),
  };
  const [row] = await db('agent_integrations')
    .insert({ agent_id: agentId, channel: channel.data, ...values })
    .onConflict(['agent_id', 'channel'])
    .merge(values)
    .returning('*');
  return present(row, box);
}

const prefixed = (error: AppError, field: string) =>
  new AppError(error.code, error.message.replace('Invalid body: ', `Invalid body: ${field}.`), {
    issues: ((error.details?.issues ?? []) as { path: string }[]).map((i) => ({
      ...i,
      path: i.path ? `${field}.${i.path}` : field,
    })),
  });

export interface SendingIntegration {
  /** `<agentId>:<channel>`: what a send rate is kept per. */
  key: string;
  provider: ProviderName;
  from: string | null;
  /** The integration's own limit; the operator's default for the provider is applied by bulk sends. */
  maxPerSecond: number | null;
  adapter: ChannelProvider;
}

/**
 * What a send needs: the adapter and the sender; null when the agent has no active integration.
 * The adapter is this process's pool for the integration, rebuilt when its settings changed.
 */
export async function integrationForSend(
  db: Db,
  box: SecretBox,
  teamId: string,
  agentId: string,
  channel: Channel,
): Promise<SendingIntegration | null> {
  const row: IntegrationRow | undefined = await db('agent_integrations')
    .where({ team_id: teamId, agent_id: agentId, channel, active: true })
    .first();
  if (!row) return null;
  const secrets = row.secrets_encrypted ? box.decrypt(row.secrets_encrypted) : {};
  return {
    key: `${row.agent_id}:${row.channel}`,
    provider: row.provider,
    from: row.from_address,
    maxPerSecond: row.max_per_second,
    adapter: providerPools.adapterFor(
      { agentId: row.agent_id, channel: row.channel },
      row.provider,
      row.config,
      secrets,
      { db, teamId },
    ),
  };
}

export async function hasActiveIntegration(
  db: Db,
  teamId: string,
  agentId: string,
  channel: Channel,
): Promise<boolean> {
  return Boolean(
    await db('agent_integrations')
      .where({ team_id: teamId, agent_id: agentId, channel, active: true })
      .first('agent_id'),
  );
}

/** The WhatsApp Cloud template API of an agent's active WhatsApp integration; null without one. */
export async function whatsappTemplatesFor(db: Db, box: SecretBox, teamId: string, agentId: string) {
  const row: IntegrationRow | undefined = await db('agent_integrations')
    .where({ team_id: teamId, agent_id: agentId, channel: 'whatsapp', provider: 'whatsapp_cloud', active: true })
    .first();
  if (!row) return null;
  return whatsappTemplates(row.config, row.secrets_encrypted ? box.decrypt(row.secrets_encrypted) : {});
}
