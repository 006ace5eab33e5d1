import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

/** `npm run cli -- <args>` as a person runs it: its own process, against the suite's database. */
export function runCli(...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', path.join(root, 'cli.ts'), ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
}
