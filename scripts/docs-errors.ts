import fs from 'node:fs';
import path from 'node:path';
import { withErrorTable } from '../api/errorCatalog';

/** Rewrites docs/API.md's error table (between its markers) from api/errorCatalog.ts. */
const file = path.resolve(__dirname, '../docs/API.md');
const before = fs.readFileSync(file, 'utf8');
const after = withErrorTable(before);
if (after === before) {
  console.log('docs/API.md: the error table is up to date');
} else {
  fs.writeFileSync(file, after);
  console.log('docs/API.md: error table rewritten from api/errorCatalog.ts');
}
