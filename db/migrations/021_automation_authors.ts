import type { Knex } from 'knex';

/**
 * Who wrote each version of an automation's steps (docs/AUTOMATIONS.md › Whose authority): the
 * user, and the agent whose MCP call wrote them, if any. A version's runWarp steps run with its
 * author's rights, never with the rights of whoever created the automation. Versions written
 * before this migration were the automation creator's only if they were version 1; later ones
 * have no known author and run as nobody (no user).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('automation_versions', (t) => {
    t.uuid('created_by');
    t.uuid('created_by_agent_id').references('agents.id').onDelete('SET NULL');
  });
  await knex.raw(
    `UPDATE automation_versions v SET created_by = a.created_by
       FROM automations a WHERE a.id = v.automation_id AND v.version = 1`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('automation_versions', (t) => {
    t.dropColumn('created_by_agent_id');
    t.dropColumn('created_by');
  });
}
