import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MODULE = 'github.com/temporalio/cli';

const projectRoot = path.resolve(__dirname, '..');
export const projectCliPath = path.join(projectRoot, '.tools', 'bin', 'temporal');
/** A per-user copy outside the clone, so a fresh clone on the same machine links instead of rebuilding. */
const userCachePath = path.join(
  process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
  'team-agent-platform',
  `temporal-${TEMPORAL_CLI_VERSION}`,
);

/**
 * Returns the path of the Temporal CLI, building it from the Go module proxy the first time.
 * `TEMPORAL_CLI_PATH` points at an existing binary instead.
 */
export async function ensureTemporalCli(log: (line: string) => void = console.log): Promise<string> {
  if (process.env.TEMPORAL_CLI_PATH) return process.env.TEMPORAL_CLI_PATH;
  if (fs.existsSync(projectCliPath)) {
    if (!fs.existsSync(userCachePath)) saveToUserCache();
    return projectCliPath;
  }
  fs.mkdirSync(path.dirname(projectCliPath), { recursive: true });
  if (fs.existsSync(userCachePath)) {
    fs.copyFileSync(userCachePath, projectCliPath);
    fs.chmodSync(projectCliPath, 0o755);
    return projectCliPath;
  }

  log(`Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go (once; takes a few minutes)...`);
  const env = { ...process.env, GOBIN: path.dirname(projectCliPath), GOFLAGS: '-buildvcs=false' };
  try {
    await run('go', ['install', `${MODULE}/cmd/temporal@${TEMPORAL_CLI_VERSION}`], { env, maxBuffer: 64 << 20 });
  } catch (err) {
    // Later tags carry `replace` directives that `go install pkg@version` refuses. A throw-away
    // module that requires the CLI ignores the dependency's replace directives and builds the same code.
    log(`go install failed (${(err as Error).message.split('\n')[0]}); building through a throw-away module`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-cli-build-'));
    fs.writeFileSync(path.join(dir, 'go.mod'), 'module temporalclibuild\n\ngo 1.23\n');
    fs.writeFileSync(
      path.join(dir, 'tools.go'),
      `//go:build tools\npackage tools\n\nimport _ "${MODULE}/cmd/temporal"\n`,
    );
    await run('go', ['get', `${MODULE}@${TEMPORAL_CLI_VERSION}`], { cwd: dir, env, maxBuffer: 64 << 20 });
    await run('go', ['build', '-o', projectCliPath, `${MODULE}/cmd/temporal`], { cwd: dir, env, maxBuffer: 64 << 20 });
  }
  saveToUserCache();
  log(`Temporal CLI ready at ${projectCliPath}`);
  return projectCliPath;
}

function saveToUserCache(): void {
  try {
    fs.mkdirSync(path.dirname(userCachePath), { recursive: true });
    fs.copyFileSync(projectCliPath, userCachePath);
  } catch {
    // The cache only saves a rebuild; a read-only home is fine.
  }
}
