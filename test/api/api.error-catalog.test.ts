import fs from 'node:fs';
import path from 'node:path';
import { errorCatalog, withErrorTable } from '../../api/errorCatalog';

const root = path.resolve(__dirname, '../..');
const SOURCE_DIRS = ['api', 'auth', 'mcp', 'services', 'channels', 'activities', 'workflows'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every (status, code) the source throws: `new AppError(<status>, '<code>'` and the 422 `ruleBroken('<code>'` (services/platform/errors.ts). */
function thrownCodes(): { status: number; code: string; file: string }[] {
  const files = [
    ...SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(root, d))),
    ...fs
      .readdirSync(root)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(root, f)),
  ];
  return files.flatMap((file) => {
    const text = fs.readFileSync(file, 'utf8');
    const found: { status: number; code: string; file: string }[] = [];
    for (const m of text.matchAll(/new AppError\(\s*(\d{3}),\s*'([a-z_]+)'/g))
      found.push({ status: Number(m[1]), code: m[2], file });
    for (const m of text.matchAll(/\bruleBroken\(\s*'([a-z_]+)'/g)) found.push({ status: 422, code: m[1], file });
    return found;
  });
}

describe('the error catalog', () => {
  it("docs/API.md carries exactly the catalog's table (npm run docs:errors rewrites it)", () => {
    const doc = fs.readFileSync(path.join(root, 'docs/API.md'), 'utf8');
    expect(doc).toBe(withErrorTable(doc));
  });

  it('names every code the source throws, with the status it is thrown with', () => {
    const thrown = thrownCodes();
    // The scan must find the shapes it looks for, or it proves nothing.
    expect(thrown.length).toBeGreaterThan(80);
    const missing = thrown
      .filter((t) => !errorCatalog.some((e) => e.status === t.status && e.code === t.code))
      .map((t) => `${t.status} ${t.code} (${path.relative(root, t.file)})`);
    expect(missing).toEqual([]);
  });

  it('lists no code the source never answers with, and each code once', () => {
    const source = [...SOURCE_DIRS.flatMap((d) => sourceFiles(path.join(root, d)))]
      .filter((f) => !f.endsWith('errorCatalog.ts'))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(errorCatalog.filter((e) => !source.includes(`'${e.code}'`)).map((e) => e.code)).toEqual([]);
    const keys = errorCatalog.map((e) => e.code);
    expect(keys.length).toBe(new Set(keys).size);
  });
});
