/** `npm run cli -- <command>`: operator commands. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config';
import { createDb, migrateLatest } from './db/knex';
import { ensurePostgres } from './db/postgres';
import { bootstrapInputSchema, bootstrapTeam } from './services/teams';

const usage = `usage:
  npm run cli -- bootstrap --team <slug> [--email <owner email>] [--agent-name <name>] [--password <password>]
      Creates the team, its owner, a first agent (where absent) and a new API token; prints one JSON line.
      With --password, sets the owner's password (at least 10 characters) for the OAuth sign-in page;
      TAP_PASSWORD in the environment does the same without putting it in the shell history.
  npm run cli -- migrate
      Applies database migrations.`;

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command !== 'bootstrap' && command !== 'migrate') {
    console.error(usage);
    process.exit(2);
  }
  const config = loadConfig();
  const pg = await ensurePostgres({ databaseUrl: config.DATABASE_URL, dataDir: path.join(config.dataDir, 'pg'), port: config.EMBEDDED_PG_PORT });
  const db = createDb(pg.url);
  try {
    await migrateLatest(db);
    if (command === 'bootstrap') {
      const { values } = parseArgs({
        args: rest,
        options: { team: { type: 'string' }, email: { type: 'string' }, 'agent-name': { type: 'string' }, password: { type: 'string' } },
      });
      const input = bootstrapInputSchema.safeParse({
        team: values.team, email: values.email, agentName: values['agent-name'], password: values.password ?? process.env.TAP_PASSWORD,
      });
      if (!input.success) {
        console.error(`bootstrap: ${input.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}\n${usage}`);
        process.exitCode = 2;
        return;
      }
      const result = await bootstrapTeam(db, input.data);
      console.log(JSON.stringify({ team: result.team, email: result.email, agentId: result.agentId, token: result.token }));
    }
  } finally {
    await db.destroy();
    await pg.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
