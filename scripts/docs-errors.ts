import fs from 'node:fs';
import path from 'node:path';
import { withErrorTable } from '../services/platform/errorCatalog';

/** Rewrites docs/API.md's error table (between its markers) from services/platform/errorCatalog.ts. */
const file = path.resolve(__dirname, '../docs/API.md');
const before = fs.readFileSync(file, 'utf8');
const after = withErrorTable(before);
if (after === before) {
  console.log('docs/API.md: the error table is up to date');
} else {
  fs.writeFileSync(file, after);
  console.log('docs/API.md: error table rewritten from services/platform/errorCatalog.ts');
}
