/**
 * The floor of bench (a) and (b): the same job (`contacts.export` of a team that fits in one
 * page) done by the plainest program that does it on Temporal, as two processes like ours: an HTTP server on
 * `node:http` and `pg` that authenticates the API token and writes the job row in one statement,
 * then starts the workflow with the same options as the API; and a worker with the SDK's defaults
 * whose workflow is one local activity running the export's three statements (mark running and
 * read, read the page, settle the job with its file) and writing the CSV. No rate limit, no
 * idempotency key, no request log, no metrics, no validation beyond the token: it shows how much of
 * a gap to the raw baseline is the work itself on Temporal's SDK, and how much is ours. (a) runs
 * the API alone (nobody polls its task queue).
 *
 * `node --import tsx bench/floorJobs.ts api|worker`, with DATABASE_URL, TEMPORAL_ADDRESS,
 * FLOOR_TASK_QUEUE, FLOOR_STORAGE and (api) PORT; each prints `floor ready` when it is.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Pool } from 'pg';
import { spawn, type ChildProcess } from 'node:child_process';
import { profileArgs } from '../entryPoints';
import { freePort } from '../temporal/freePort';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../workflows/contracts/searchAttributeKeys';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

async function api(): Promise<void> {
  const { Client, Connection } = await import('@temporalio/client');
  const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });
  const client = new Client({ connection: await Connection.connect({ address: env('TEMPORAL_ADDRESS') }) });
  const taskQueue = env('FLOOR_TASK_QUEUE');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        const slug = String(req.headers['x-team-slug'] ?? '');
        const type = (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { type?: string }).type;
        const jobId = `job_${randomUUID().replace(/-/g, '')}`;
        const { rows } = await pool.query({
          name: 'floor-job',
          text: `INSERT INTO jobs (id, team_id, type, status, input, workflow_id)
                 SELECT $1, m.team_id, $2, 'queued', '{}', $3
                 FROM api_tokens t JOIN teams ON teams.slug = $5
                 JOIN memberships m ON m.team_id = teams.id AND m.user_id = t.user_id
                 WHERE t.token_hash = $4 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
                 RETURNING team_id`,
          values: [jobId, type, `floor-${jobId}`, createHash('sha256').update(token).digest('hex'), slug],
        });
        if (rows.length === 0) {
          res.writeHead(401).end('{}');
          return;
        }
        await client.workflow.start('floorJobWorkflow', {
          taskQueue,
          workflowId: `floor-${jobId}`,
          args: [{ jobId, type, importBatchSize: 1, onePageExportFirst: true }],
          typedSearchAttributes: [
            { key: TeamSlugKey, value: slug },
            { key: JobTypeKey, value: String(type) },
            { key: BusinessIdKey, value: jobId },
          ],
          staticSummary: `${type} job ${jobId} for team ${slug}`,
          staticDetails: `Job **${jobId}** (\`${type}\`) of team **${slug}**.`,
        });
        res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ jobId, status: 'queued' }));
      })().catch((err: Error) => res.writeHead(500).end(JSON.stringify({ error: err.message })));
    });
  });
  server.listen(Number(env('PORT')), '127.0.0.1', () => console.log('floor ready'));
}

async function worker(): Promise<void> {
  const { DefaultLogger, NativeConnection, Runtime, Worker } = await import('@temporalio/worker');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const pool = new Pool({ connectionString: env('DATABASE_URL'), max: 10 });
  const storage = env('FLOOR_STORAGE');
  const header = 'name,email,phone,company,tags,created_at\n';
  const activities = {
    async exportJobInOnePage(jobId: string) {
      const marked = await pool.query({
        name: 'floor-mark',
        text: `WITH m AS (UPDATE jobs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued')
               SELECT team_id FROM jobs WHERE id = $1`,
        values: [jobId],
      });
      const teamId: string = marked.rows[0].team_id;
      const page = await pool.query({
        name: 'floor-page',
        text: `SELECT seq, name, email, phone, company, tags, created_at FROM contacts
               WHERE team_id = $1 AND seq > 0 ORDER BY seq LIMIT 1001`,
        values: [teamId],
      });
      const csv =
        header +
        page.rows
          .map((r) =>
            [r.name, r.email, r.phone, r.company, (r.tags ?? []).join(';'), r.created_at?.toISOString()].join(','),
          )
          .join('\n');
      const mediaId = `med_${jobId.slice(4)}`;
      const key = `${teamId}/${mediaId}.csv`;
      await fs.promises.mkdir(path.join(storage, teamId), { recursive: true });
      await fs.promises.writeFile(path.join(storage, key), csv);
      const result = { mediaId, contentType: 'text/csv', rowCount: page.rows.length, bytes: Buffer.byteLength(csv) };
      await pool.query({
        name: 'floor-settle',
        text: `WITH f AS (INSERT INTO media (id, team_id, filename, content_type, size_bytes, storage_key)
                          VALUES ($2, $3, $4, 'text/csv', $5, $6) ON CONFLICT (id) DO NOTHING)
               UPDATE jobs SET status = 'succeeded', result = $7, finished_at = now()
               WHERE id = $1 AND status IN ('queued', 'running')`,
        values: [jobId, mediaId, teamId, `${jobId}.csv`, result.bytes, key, JSON.stringify(result)],
      });
      return result;
    },
  };
  const w = await Worker.create({
    connection: await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') }),
    taskQueue: env('FLOOR_TASK_QUEUE'),
    workflowsPath: require.resolve('./floorWorkflow'),
    activities,
  });
  const running = w.run();
  console.log('floor ready');
  await running;
}

if (require.main === module) {
  const role = process.argv[2];
  (role === 'api' ? api() : role === 'worker' ? worker() : Promise.reject(new Error('api or worker'))).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * Starts the floor's API, and its worker unless `apiOnly` (bench (a) measures starts alone), as
 * processes of their own; `baseUrl` takes `POST /jobs`. `pids` has null for a role not started.
 */
export async function startFloor(vars: {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  storage: string;
  apiOnly?: boolean;
}): Promise<{ baseUrl: string; pids: { api: number; worker: number | null }; stop(): Promise<void> }> {
  const port = await freePort();
  const start = (role: 'api' | 'worker') =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(process.execPath, [...profileArgs(), '--import', 'tsx', __filename, role], {
        env: {
          ...process.env,
          DATABASE_URL: vars.databaseUrl,
          TEMPORAL_ADDRESS: vars.temporalAddress,
          FLOOR_TASK_QUEUE: vars.taskQueue,
          FLOOR_STORAGE: vars.storage,
          PORT: String(port),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('floor ready') && resolve(child));
      child.once('exit', (code) => reject(new Error(`the floor's ${role} exited (${code})`)));
    });
  const children = await Promise.all(vars.apiOnly ? [start('api')] : [start('api'), start('worker')]);
  const stopOne = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pids: { api: children[0].pid!, worker: children[1]?.pid ?? null },
    stop: async () => {
      await Promise.all(children.map(stopOne));
    },
  };
}
