/** `npm run cli -- <command>`: operator commands. */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from './config';
import { createDb, migrateLatest } from './db/knex';
import { ensurePostgres } from './db/postgres';
import { bootstrapInputSchema, bootstrapTeam, teamSlugSchema } from './services/platform/teams';
import { AppError } from './services/platform/errors';
import { knownPlans, setTeamPlan } from './services/platform/plans';
import { grantPlatformAdmin, revokePlatformAdmin } from './services/identity/platformAdmins';

const usage = `usage:
  npm run cli -- bootstrap --team <slug> [--email <owner email>] [--agent-name <name>] [--password <password>]
      Creates the team, its owner, a first agent (where absent) and a new API token; prints one JSON line.
      With --password, sets the owner's password (at least 10 characters) for the OAuth sign-in page;
      TAP_PASSWORD in the environment does the same without putting it in the shell history.
  npm run cli -- set-plan --team <slug> --plan <plan>
      Puts the team on a plan (a plan named in MCP_CREDITS or RATE_LIMITS: free, pro by default); the new
      credits and request quota apply at once, to the current billing cycle. Prints { team, credits }.
  npm run cli -- grant-admin --email <email>
      Makes the user (created where absent) a platform operator and prints a new API token for
      PUT /v1/admin/teams/{slug}/plan. Team owners are not operators.
  npm run cli -- revoke-admin --email <email>
      The user is no longer a platform operator.
  npm run cli -- migrate
      Applies database migrations.`;

const COMMANDS = new Set(['bootstrap', 'migrate', 'set-plan', 'grant-admin', 'revoke-admin']);

/** A refusal the operator can fix: the message and the usage, exit code 2. */
function refuse(command: string, message: string): void {
  console.error(`${command}: ${message}\n${usage}`);
  process.exitCode = 2;
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!COMMANDS.has(command)) {
    console.error(usage);
    process.exit(2);
  }
  const config = loadConfig();
  const pg = await ensurePostgres({
    databaseUrl: config.DATABASE_URL,
    dataDir: path.join(config.dataDir, 'pg'),
    port: config.EMBEDDED_PG_PORT,
  });
  const db = createDb(pg.url);
  try {
    await migrateLatest(db);
    if (command === 'bootstrap') {
      const { values } = parseArgs({
        args: rest,
        options: {
          team: { type: 'string' },
          email: { type: 'string' },
          'agent-name': { type: 'string' },
          password: { type: 'string' },
        },
      });
      const input = bootstrapInputSchema.safeParse({
        team: values.team,
        email: values.email,
        agentName: values['agent-name'],
        password: values.password ?? process.env.TAP_PASSWORD,
      });
      if (!input.success) {
        console.error(
          `bootstrap: ${input.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}\n${usage}`,
        );
        process.exitCode = 2;
        return;
      }
      const result = await bootstrapTeam(db, input.data);
      console.log(
        JSON.stringify({ team: result.team, email: result.email, agentId: result.agentId, token: result.token }),
      );
    }
    if (command === 'set-plan') {
      const { values } = parseArgs({ args: rest, options: { team: { type: 'string' }, plan: { type: 'string' } } });
      const slug = teamSlugSchema.safeParse(values.team);
      if (!slug.success || !values.plan) {
        refuse(command, `give --team <slug> and --plan <one of ${knownPlans(config).join(', ')}>`);
        return;
      }
      try {
        console.log(JSON.stringify(await setTeamPlan(db, config, slug.data, values.plan)));
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        refuse(command, err.message);
      }
    }
    if (command === 'grant-admin' || command === 'revoke-admin') {
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' } } });
      const email = z.email().safeParse(values.email);
      if (!email.success) {
        refuse(command, "give --email <the operator's email>");
        return;
      }
      if (command === 'grant-admin') {
        console.log(JSON.stringify(await grantPlatformAdmin(db, email.data)));
      } else if (await revokePlatformAdmin(db, email.data)) {
        console.log(JSON.stringify({ email: email.data, platformAdmin: false }));
      } else {
        refuse(command, `no user has the email ${email.data}`);
      }
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
