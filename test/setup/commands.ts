import { execFileSync } from 'node:child_process';

/** Whether `name` is a command on the PATH. */
export function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Installs the Debian packages of the commands that are missing (e.g. `jq` for the walk-through
 * scripts), as `chromium.ts` does for the browser. Needs root (CI and the developer machines run as root).
 */
export function ensureCommands(packages: Record<string, string>, log: (line: string) => void): void {
  const missing = Object.entries(packages).filter(([command]) => !hasCommand(command));
  if (missing.length === 0) return;
  const names = missing.map(([, pkg]) => pkg);
  if (process.getuid?.() !== 0) {
    throw new Error(
      `missing commands ${missing.map(([c]) => c).join(', ')}: install them (apt-get install -y ${names.join(' ')})`,
    );
  }
  log(`installing ${names.join(', ')} (once)...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'ignore', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...names], { stdio: 'ignore', env });
  const still = missing.filter(([command]) => !hasCommand(command));
  if (still.length)
    throw new Error(`apt-get installed ${names.join(' ')}, yet ${still.map(([c]) => c).join(', ')} is missing`);
}
