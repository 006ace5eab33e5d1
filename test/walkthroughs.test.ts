import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureCommands } from './setup/commands';
import { projectRoot, startApiProcess, WorkerProcess } from './setup/stack';

/**
 * The README's walk-through scripts, as a person runs them: all six in order against one running
 * API (its own process on a free port, the suite's Temporal, worker and database), each through
 * bash with TAP_URL. Each must exit 0 and end with its "OK … walk-through: …" line.
 *
 * The production profile (`npm run test:cluster`) sets WALKTHROUGH_API_PROCESSES=2: the scripts
 * take turns between two API processes on their own ports, one database and one Temporal cluster,
 * as behind a load balancer.
 */
const SCRIPTS = ['delivery', 'campaign', 'oauth', 'mcp', 'agent', 'automation'];
const API_PROCESSES = Number(process.env.WALKTHROUGH_API_PROCESSES ?? '1');

function runScript(name: string, tapUrl: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(projectRoot, 'scripts', `${name}-walkthrough.sh`)], {
      cwd: projectRoot,
      env: { ...process.env, TAP_URL: tapUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name}-walkthrough.sh ran over 120 s:\n${output}`));
    }, 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('README walk-through scripts', () => {
  let apis: (WorkerProcess & { baseUrl: string })[] = [];

  beforeAll(async () => {
    ensureCommands({ jq: 'jq', openssl: 'openssl', curl: 'curl' }, (line) =>
      process.stdout.write(`[walkthroughs] ${line}\n`),
    );
    // Earlier suites register many OAuth clients from 127.0.0.1 in the shared test database, and the
    // per-address registration limit counts them all; on `npm start` the walk-throughs start fresh.
    apis = await Promise.all(
      Array.from({ length: API_PROCESSES }, () => startApiProcess({ REGISTRATION_LIMIT: '1000/600' })),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all(apis.map((api) => api.stop()));
  });

  const against = API_PROCESSES === 1 ? 'one API' : `${API_PROCESSES} API processes in turn`;
  it(`run in order against ${against}, each ending with what it proved`, async () => {
    for (const [i, name] of SCRIPTS.entries()) {
      // The scripts use the public host (issuer, MCP resource), http://localhost:<port>, as against npm start.
      const tapUrl = `http://localhost:${new URL(apis[i % apis.length].baseUrl).port}`;
      const { code, output } = await runScript(name, tapUrl);
      const lines = output.trimEnd().split('\n');
      const last = lines[lines.length - 1];
      if (code !== 0 || !last.startsWith(`OK ${name} walk-through: `)) {
        throw new Error(
          `${name}-walkthrough.sh against ${tapUrl} exited ${code}; its last lines:\n${lines.slice(-15).join('\n')}`,
        );
      }
    }
  }, 400_000);
});
