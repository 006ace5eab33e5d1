// Runs before `npm start` and `npm test` with plain Node: installs dependencies when they are
// missing or older than package-lock.json, so a fresh clone needs only the one command.
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const marker = path.join(root, 'node_modules', '.package-lock.json');
const lock = path.join(root, 'package-lock.json');
const stale = !fs.existsSync(marker) || fs.statSync(marker).mtimeMs < fs.statSync(lock).mtimeMs;
if (stale) {
  // `npm ci`: exactly the committed lockfile, the way users and CI install. The lockfile holds every
  // platform's optional packages (package.json pins @swc/core and unrs-resolver to versions whose
  // platform builds are all published), so it works on any machine, not just this one.
  console.log('[setup] installing dependencies (npm ci from package-lock.json)...');
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
