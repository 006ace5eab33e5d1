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
  // `npm install`, not `npm ci`: lockfiles written without registry URLs (this project's npm
  // setting) lack other platforms' optional packages, which `npm ci` refuses; `npm install`
  // still installs the locked versions.
  console.log('[setup] installing dependencies (npm install from package-lock.json)...');
  execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
