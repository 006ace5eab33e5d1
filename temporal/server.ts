import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The Temporal server release the production profile runs (temporal-compose.yml names the same one). */
export const TEMPORAL_SERVER_VERSION = 'v1.32.2';
/** v1.32.2's go.mod asks for this Go; an older local Go fetches it through the module proxy. */
const GO_TOOLCHAIN = 'go1.26.10';
const MODULE = 'go.temporal.io/server';

const projectRoot = path.resolve(__dirname, '..');
const projectBinDir = path.join(projectRoot, '.tools', 'bin');
/** A per-user copy outside the clone, so a fresh clone on the same machine copies instead of rebuilding. */
const userCacheDir = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'team-agent-platform');

export interface TemporalServerBinaries {
  /** `temporal-server`: every service (frontend, history, matching, worker) of one release. */
  server: string;
  /** `temporal-sql-tool`: creates and migrates the Postgres schemas of the same release. */
  sqlTool: string;
}

/** Each binary: the Go package it is built from, and the name the release ships it under. */
const BINARIES = [
  { key: 'server', pkg: `${MODULE}/cmd/server`, goName: 'server', name: 'temporal-server' },
  { key: 'sqlTool', pkg: `${MODULE}/cmd/tools/sql`, goName: 'sql', name: 'temporal-sql-tool' },
] as const;

const projectPath = (name: string) => path.join(projectBinDir, name);
const cachePath = (name: string) => path.join(userCacheDir, `${name}-${TEMPORAL_SERVER_VERSION}`);
const versionStamp = path.join(projectBinDir, 'temporal-server.version');

/**
 * Returns the paths of `temporal-server` and `temporal-sql-tool` of {@link TEMPORAL_SERVER_VERSION},
 * building them with Go the first time (several minutes; later clones copy the per-user cache).
 * `TEMPORAL_SERVER_PATH` and `TEMPORAL_SQL_TOOL_PATH` point at existing binaries instead.
 */
export async function ensureTemporalServer(log: (line: string) => void = console.log): Promise<TemporalServerBinaries> {
  if (process.env.TEMPORAL_SERVER_PATH && process.env.TEMPORAL_SQL_TOOL_PATH) {
    return { server: process.env.TEMPORAL_SERVER_PATH, sqlTool: process.env.TEMPORAL_SQL_TOOL_PATH };
  }
  const paths = { server: projectPath('temporal-server'), sqlTool: projectPath('temporal-sql-tool') };
  // A binary of another release in .tools/bin (after a version bump) is rebuilt, not reused.
  const stamped =
    fs.existsSync(versionStamp) && fs.readFileSync(versionStamp, 'utf8').trim() === TEMPORAL_SERVER_VERSION;
  if (stamped && BINARIES.every((b) => fs.existsSync(projectPath(b.name)))) {
    for (const b of BINARIES) if (!fs.existsSync(cachePath(b.name))) saveToUserCache(b.name);
    return paths;
  }
  fs.mkdirSync(projectBinDir, { recursive: true });
  if (BINARIES.every((b) => fs.existsSync(cachePath(b.name)))) {
    for (const b of BINARIES) {
      fs.copyFileSync(cachePath(b.name), projectPath(b.name));
      fs.chmodSync(projectPath(b.name), 0o755);
    }
    fs.writeFileSync(versionStamp, `${TEMPORAL_SERVER_VERSION}\n`);
    return paths;
  }

  const started = Date.now();
  log(`Building the Temporal server ${TEMPORAL_SERVER_VERSION} with Go (once; takes several minutes)...`);
  // `go install` names the binaries after their package directories (server, sql): build into a
  // scratch directory, then move them to the names the release ships.
  const gobin = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-server-build-'));
  const env = {
    ...process.env,
    GOBIN: gobin,
    GOFLAGS: '-buildvcs=false',
    // `+auto`: this Go at least, a newer one if the module asks (a machine's GOTOOLCHAIN=local would refuse).
    GOTOOLCHAIN: `${GO_TOOLCHAIN}+auto`,
  };
  await run('go', ['install', ...BINARIES.map((b) => `${b.pkg}@${TEMPORAL_SERVER_VERSION}`)], {
    env,
    maxBuffer: 64 << 20,
  });
  for (const b of BINARIES) {
    fs.copyFileSync(path.join(gobin, b.goName), projectPath(b.name));
    fs.chmodSync(projectPath(b.name), 0o755);
    saveToUserCache(b.name);
  }
  fs.rmSync(gobin, { recursive: true, force: true });
  fs.writeFileSync(versionStamp, `${TEMPORAL_SERVER_VERSION}\n`);
  log(`Temporal server ready in ${projectBinDir} (built in ${Math.round((Date.now() - started) / 1000)} s)`);
  return paths;
}

function saveToUserCache(name: string): void {
  try {
    fs.mkdirSync(userCacheDir, { recursive: true });
    fs.copyFileSync(projectPath(name), cachePath(name));
  } catch {
    // The cache only saves a rebuild; a read-only home is fine.
  }
}
