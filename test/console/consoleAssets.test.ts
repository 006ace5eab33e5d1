import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CONSOLE_PAGES } from '../../console/pages';
import type { Db } from '../../db/knex';
import { startTestApi, testDb } from '../support/helpers';

const root = path.resolve(__dirname, '../..');
const assets = path.join(root, 'console/assets');

/**
 * The console's modules as files: the API types they are checked against are the ones generated
 * from the OpenAPI snapshot, the page list names one module per page, and the router serves the
 * modules as JavaScript, and nothing else of console/.
 */
describe('console: modules, page list and API types', () => {
  it('console/assets/api/openapi.d.ts is what `npm run console:types` makes of the OpenAPI snapshot', () => {
    const generated = execFileSync(
      process.execPath,
      [path.join(root, 'node_modules/openapi-typescript/bin/cli.js'), 'test/api/snapshots/openapi.json'],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 },
    );
    expect(generated.length).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(assets, 'api/openapi.d.ts'), 'utf8')).toBe(generated);
  });

  it('the one page list names a module for each page, and every page module is in the list', () => {
    const modules = fs
      .readdirSync(path.join(assets, 'pages'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => f.slice(0, -'.js'.length))
      .sort();
    expect(CONSOLE_PAGES.map((p) => p.name).sort()).toEqual(modules);
    for (const page of CONSOLE_PAGES) {
      expect(page.name).toMatch(/^[a-z]+$/); // console/assets/main.js loads only such names
      expect(fs.readFileSync(path.join(assets, 'pages', `${page.name}.js`), 'utf8')).toMatch(
        /^export default (async )?function /m,
      );
      if (page.section) expect(CONSOLE_PAGES.find((p) => p.name === page.section)?.nav).toBeTruthy();
    }
  });

  it('every console module starts with // @ts-check', () => {
    const modules = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) =>
          e.isDirectory() ? modules(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : [],
        );
    const files = modules(assets);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files)
      expect([file, fs.readFileSync(file, 'utf8').split('\n')[0]]).toEqual([file, '// @ts-check']);
  });

  describe('served', () => {
    let db: Db;
    let server: Awaited<ReturnType<typeof startTestApi>>;
    let origin: string;
    beforeAll(async () => {
      db = testDb();
      server = await startTestApi(db);
      origin = new URL(server.baseUrl).origin;
    });
    afterAll(async () => {
      await server?.close();
      await db?.destroy();
    });

    it('serves the modules as text/javascript under the console CSP, and nothing else of console/', async () => {
      for (const file of ['main.js', 'lib/dom.js', 'api/endpoints.js', 'pages/campaign.js']) {
        const res = await fetch(`${origin}/app/assets/${file}`);
        expect([file, res.status, res.headers.get('content-type')]).toEqual([
          file,
          200,
          'text/javascript; charset=utf-8',
        ]);
        expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
        expect(await res.text()).toBe(fs.readFileSync(path.join(assets, file), 'utf8'));
      }
      expect((await fetch(`${origin}/app/assets/console.css`)).headers.get('content-type')).toMatch(/^text\/css/);
      for (const file of [
        'api/openapi.d.ts',
        'api/types.d.ts',
        'tsconfig.json',
        'pages/nothing.js',
        '..%2Frouter.ts',
        '%2E%2E/pages.ts',
        '.hidden.js',
        'pages/.hidden.js',
      ])
        expect([file, (await fetch(`${origin}/app/assets/${file}`)).status]).toEqual([file, 404]);
    });
  });
});
