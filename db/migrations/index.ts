import type { Knex } from 'knex';
import * as foundation from './001_foundation';
import * as jobInputChunks from './002_job_input_chunks';
import * as idempotencyClaims from './003_idempotency_claims';
import * as auth from './004_auth';
import * as artifactsDelivery from './005_artifacts_delivery';
import * as campaigns from './006_campaigns';
import * as mcp from './007_mcp';
import * as outboundMessages from './008_outbound_messages';
import * as consentAndOperators from './009_consent_and_operators';
import * as sendRates from './010_send_rates';
import * as agentConversations from './011_agent_conversations';
import * as eventsWebhooks from './012_events_webhooks';
import * as warps from './013_warps';
import * as memoryWords from './014_memory_words';
import * as hooks from './015_hooks';
import * as automations from './016_automations';
import * as teamAdminStudio from './017_team_admin_studio';
import * as agentAccess from './018_agent_access';
import * as webhookBatches from './019_webhook_batches';
import * as paymentTurns from './020_payment_turns';
import * as automationAuthors from './021_automation_authors';
import * as signalSteps from './022_signal_steps';
import * as creditShards from './023_credit_shards';
import * as automationCohorts from './024_automation_cohorts';
import * as roomKeyRevocation from './025_room_key_revocation';
import * as agentProperties from './026_agent_properties';
import * as forms from './028_forms';
import * as agentInbox from './027_agent_inbox';
import * as webhookSettings from './030_webhook_settings';
import * as shop from './029_shop';
import * as sendRowsUncheckedParents from './031_send_rows_unchecked_parents';
import * as recipientsUpdatedInPlace from './032_recipients_updated_in_place';

/**
 * Migrations are listed here rather than discovered on disk so that they load the same way
 * under tsx, jest and a bundled build.
 */
const migrations: Record<string, Knex.Migration> = {
  '001_foundation': foundation,
  '002_job_input_chunks': jobInputChunks,
  '003_idempotency_claims': idempotencyClaims,
  '004_auth': auth,
  '005_artifacts_delivery': artifactsDelivery,
  '006_campaigns': campaigns,
  '007_mcp': mcp,
  '008_outbound_messages': outboundMessages,
  '009_consent_and_operators': consentAndOperators,
  '010_send_rates': sendRates,
  '011_agent_conversations': agentConversations,
  '012_events_webhooks': eventsWebhooks,
  '013_warps': warps,
  '014_memory_words': memoryWords,
  '015_hooks': hooks,
  '016_automations': automations,
  '017_team_admin_studio': teamAdminStudio,
  '018_agent_access': agentAccess,
  '019_webhook_batches': webhookBatches,
  '020_payment_turns': paymentTurns,
  '021_automation_authors': automationAuthors,
  '022_signal_steps': signalSteps,
  '023_credit_shards': creditShards,
  '024_automation_cohorts': automationCohorts,
  '025_room_key_revocation': roomKeyRevocation,
  '026_agent_properties': agentProperties,
  '028_forms': forms,
  '027_agent_inbox': agentInbox,
  '030_webhook_settings': webhookSettings,
  '029_shop': shop,
  '031_send_rows_unchecked_parents': sendRowsUncheckedParents,
  '032_recipients_updated_in_place': recipientsUpdatedInPlace,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
