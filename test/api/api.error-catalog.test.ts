import fs from 'node:fs';
import path from 'node:path';
import { errorCatalog, withErrorTable } from '../../services/platform/errorCatalog';

const root = path.resolve(__dirname, '../..');
const SOURCE_DIRS = ['api', 'auth', 'mcp', 'services', 'channels', 'activities', 'workflows'];
/** Where errors are raised: the source, and the console's and Temporal client's own throws. */
const THROWING_DIRS = [...SOURCE_DIRS, 'console', 'temporal'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * Every code the source throws: `new AppError('<code>'`, `super('<code>'` in a subclass of AppError,
 * and `ruleBroken('<code>'` (services/platform/errors.ts). The compiler checks the same through
 * `ErrorCode`; this scan holds even where a cast or `any` slips past it.
 */
function thrownCodes(): { code: string; file: string }[] {
  const files = [
    ...THROWING_DIRS.flatMap((d) => sourceFiles(path.join(root, d))),
    ...fs
      .readdirSync(root)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(root, f)),
  ];
  return files.flatMap((file) => {
    const text = fs.readFileSync(file, 'utf8');
    const found: { code: string; file: string }[] = [];
    for (const m of text.matchAll(/\b(?:new AppError|ruleBroken)\(\s*'([a-z_]+)'/g)) found.push({ code: m[1], file });
    if (/\bextends AppError\b/.test(text))
      for (const m of text.matchAll(/\bsuper\(\s*'([a-z_]+)'/g)) found.push({ code: m[1], file });
    return found;
  });
}

describe('the error catalog', () => {
  it("docs/API.md carries exactly the catalog's table (npm run docs:errors rewrites it)", () => {
    const doc = fs.readFileSync(path.join(root, 'docs/API.md'), 'utf8');
    expect(doc).toBe(withErrorTable(doc));
  });

  it('names every code the source throws (its status comes from the catalog)', () => {
    const thrown = thrownCodes();
    // The scan must find the shapes it looks for, or it proves nothing.
    expect(thrown.length).toBeGreaterThan(80);
    const missing = thrown
      .filter((t) => !errorCatalog.some((e) => e.code === t.code))
      .map((t) => `${t.code} (${path.relative(root, t.file)})`);
    expect(missing).toEqual([]);
  });

  it("raises no error with a status of its own: AppError takes a code, and the status is the catalog's", () => {
    const files = THROWING_DIRS.flatMap((d) => sourceFiles(path.join(root, d)));
    const withStatus = files.filter((f) => /new AppError\(\s*\d{3}\s*,/.test(fs.readFileSync(f, 'utf8')));
    expect(withStatus.map((f) => path.relative(root, f))).toEqual([]);
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
