import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import ts from 'typescript';
import { campaignWorkflowName } from '../../workflows/contracts/campaign';
import { campaignContactWorkflowName } from '../../workflows/contracts/campaignContact';
import { privateWarpWorkflowName } from '../../workflows/contracts/privateWarp';
import { roomWorkflowName, turnWorkflowName } from '../../workflows/contracts/room';
import { studioProduceWorkflowName } from '../../workflows/contracts/studioProduce';
import { webhookBatchWorkflowName } from '../../workflows/contracts/webhookBatch';
import { webhookDeliveryWorkflowName } from '../../workflows/contracts/webhookDelivery';
import { hookRunWorkflowName } from '../../workflows/contracts/hookRun';
import { enrollmentWorkflowName } from '../../workflows/contracts/enrollment';
import { cohortWorkflowName } from '../../workflows/contracts/cohort';
import { deliveryWorkflowName } from '../../workflows/contracts/delivery';
import { jobWorkflowName } from '../../workflows/contracts/job';
import { warpExecutionWorkflowName } from '../../workflows/contracts/warpExecution';
import { whatsappTemplateWorkflowName } from '../../workflows/contracts/whatsappTemplate';

/**
 * The layering of the product's code: no import circle anywhere (type imports count, as madge
 * counts them); the layers point one way (api/, mcp/, console/ and activities/ call services/;
 * services/ know no transport; channels/ and db/ know no services); workflows see only their
 * contracts, and contracts see nothing of the code around them. The same circle check by hand:
 * `npx -y madge --circular --extensions ts --ts-config tsconfig.json services workflows activities api mcp console auth channels db temporal`.
 */
const root = path.resolve(__dirname, '../..');
const layers = ['services', 'workflows', 'activities', 'api', 'mcp', 'console', 'auth', 'channels', 'db', 'temporal'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every module a file imports or re-exports (`import type` included), relative ones resolved to files. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return importedFiles.map(({ fileName }) => {
    if (!fileName.startsWith('.')) return fileName;
    const base = path.resolve(path.dirname(file), fileName);
    return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate)) ?? base;
  });
}

const files = layers.flatMap((layer) => sourceFiles(path.join(root, layer)));
const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => files.includes(target))]));
const rel = (file: string) => path.relative(root, file);

function circles(): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].map(rel).join(' > '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return found;
}

describe('workflow contracts and layering', () => {
  it('has no import circle in the product (services, workflows, activities, api, mcp, console, auth, channels, db, temporal)', () => {
    expect(files.length).toBeGreaterThan(40);
    for (const layer of layers)
      expect([layer, files.some((f) => rel(f).startsWith(`${layer}/`))]).toEqual([layer, true]);
    expect(circles()).toEqual([]);
  });

  /** The files of `from` that import anything under one of `forbidden`. */
  const crossings = (from: string[], forbidden: string[]) =>
    files
      .filter((file) => from.some((layer) => rel(file).startsWith(`${layer}/`)))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => forbidden.some((layer) => rel(target).startsWith(`${layer}/`)))
          .map((target) => `${rel(file)} → ${rel(target)}`),
      );

  it('services know no transport: nothing of api/, mcp/, console/, auth/ or activities/', () => {
    expect(crossings(['services'], ['api', 'mcp', 'console', 'auth', 'activities'])).toEqual([]);
  });

  it('SQL lives in services: no adapter (api, mcp, console, auth, activities) queries a table itself', () => {
    const adapters = files.filter((f) =>
      ['api/', 'mcp/', 'console/', 'auth/', 'activities/'].some((a) => rel(f).startsWith(a)),
    );
    const queries = adapters.flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\b(db|trx)\(\s*['"`]/.test(line) ? [`${rel(file)}:${i + 1}`] : [])),
    );
    expect(adapters.length).toBeGreaterThan(20);
    expect(queries).toEqual([]);
  });

  it('channels/ and db/ know no services, and nothing above them', () => {
    const above = ['services', 'api', 'mcp', 'console', 'auth', 'activities', 'workflows'];
    expect(crossings(['channels', 'db'], above)).toEqual([]);
  });

  it('the surfaces do not reach into each other beyond the shared HTTP plumbing: console/ and mcp/ call services, not api/ routes', () => {
    // api/app.ts mounts the other routers (the one Express app); mcp/ shares api/'s HTTP helpers
    // (body parser, rate headers, metrics), never a route or an operation of it.
    const shared = ['api/http.ts', 'api/auth.ts', 'api/metrics.ts'];
    const reaches = crossings(['mcp', 'console', 'activities'], ['api', 'mcp', 'console']).filter((edge) => {
      const [from, to] = edge.split(' → ');
      return from.split('/')[0] !== to.split('/')[0] && !shared.includes(to);
    });
    expect(reaches).toEqual([]);
  });

  it('workflows import only their contracts, their own helpers and @temporalio/workflow', () => {
    // Contracts have their rule below (they may name search attributes with @temporalio/common).
    const outside = files
      .filter((f) => rel(f).startsWith('workflows/') && !rel(f).startsWith('workflows/contracts/'))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => !(target === '@temporalio/workflow' || rel(target).startsWith('workflows/')))
          .map((t) => `${rel(file)} → ${t}`),
      );
    expect(outside).toEqual([]);
  });

  it('contracts import only @temporalio/*, zod (schemas.ts; the others type-only) and other contracts', () => {
    const outside = files
      .filter((f) => rel(f).startsWith('workflows/contracts/'))
      .flatMap((file) =>
        importsOf(file)
          .filter(
            (target) =>
              !(
                target.startsWith('@temporalio/') ||
                target === 'zod' ||
                rel(target).startsWith('workflows/contracts/')
              ),
          )
          .map((t) => `${rel(file)} → ${t}`),
      );
    expect(outside).toEqual([]);
  });

  it('the workflow bundle leaves zod out: contracts take their types from schemas.ts with import type', async () => {
    // The worker evaluates the bundle's modules again for every workflow it instantiates; zod's
    // schema construction cost a third of the workflow thread's time (docs/BENCHMARKS.md, run 24).
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(root, 'workflows', 'index.ts'),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
    });
    const modules = [...code.matchAll(/^\/\*\*\*\/ "([^"]+)"/gm)].map((m) => m[1]);
    expect(modules).toContain('./workflows/enrollment.ts');
    expect(modules.filter((m) => m.includes('node_modules/zod/'))).toEqual([]);
    expect(modules).not.toContain('./workflows/contracts/schemas.ts');
  }, 60_000);

  it('no workflow module keeps state at module scope: the bundle preloads them once for every workflow', () => {
    // temporal/workflowBundle.ts preloads workflows/ into the worker's shared V8 context, so a
    // module's top level runs once and is seen by every workflow. It may declare functions, types,
    // literals, read-only arrays and the SDK's definitions and proxies; a `let`, a collection or a
    // statement run for its effect would be shared by every workflow the worker runs.
    const definitions = new Set([
      'proxyActivities',
      'proxyLocalActivities',
      'defineSignal',
      'defineQuery',
      'defineUpdate',
      'defineSearchAttributeKey',
    ]);
    const stateless = (init: ts.Expression | undefined, type?: ts.TypeNode): boolean => {
      if (!init) return false;
      if (ts.isAsExpression(init) && init.type.getText() === 'const') return true;
      if (ts.isStringLiteral(init) || ts.isNumericLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init))
        return true;
      if (ts.isTemplateExpression(init) || ts.isArrowFunction(init) || ts.isFunctionExpression(init)) return true;
      // A constant read or computed from constants: `-1`, `DELAYS.length + 1`.
      if (ts.isIdentifier(init) || ts.isPropertyAccessExpression(init)) return true;
      if (ts.isPrefixUnaryExpression(init)) return stateless(init.operand);
      if (ts.isBinaryExpression(init)) return stateless(init.left) && stateless(init.right);
      if (ts.isArrayLiteralExpression(init))
        return !!type && ts.isTypeOperatorNode(type) && type.operator === ts.SyntaxKind.ReadonlyKeyword;
      if (ts.isSatisfiesExpression(init)) return stateless(init.expression, type);
      return ts.isCallExpression(init) && definitions.has(init.expression.getText());
    };
    const topLevelIsStateless = (statement: ts.Statement): boolean =>
      ts.isImportDeclaration(statement) ||
      ts.isExportDeclaration(statement) ||
      ts.isFunctionDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      // `workflow satisfies Contract;` is checked by the compiler and does nothing when run.
      (ts.isExpressionStatement(statement) && ts.isSatisfiesExpression(statement.expression)) ||
      // A class without static members holds nothing between its instances.
      (ts.isClassDeclaration(statement) &&
        !statement.members.some((m) => ts.getCombinedModifierFlags(m as ts.Declaration) & ts.ModifierFlags.Static)) ||
      (ts.isVariableStatement(statement) &&
        !!(statement.declarationList.flags & ts.NodeFlags.Const) &&
        statement.declarationList.declarations.every((d) => stateless(d.initializer, d.type)));
    const offending = files
      // schemas.ts holds zod schemas for the API; contracts import its types only, and the bundle leaves it out (above).
      .filter((file) => rel(file).startsWith('workflows/') && rel(file) !== 'workflows/contracts/schemas.ts')
      .flatMap((file) => {
        const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
        return source.statements.flatMap((statement) => {
          if (topLevelIsStateless(statement)) return [];
          const { line } = source.getLineAndCharacterOfPosition(statement.getStart());
          return [`${rel(file)}:${line + 1}: ${statement.getText().split('\n')[0]}`];
        });
      });
    expect(offending).toEqual([]);
  });

  it('each contract names a workflow the worker registers', () => {
    const registered = [
      ...fs.readFileSync(path.join(root, 'workflows', 'index.ts'), 'utf8').matchAll(/export \{ (\w+) \} from/g),
    ]
      .map((m) => m[1])
      .sort();
    expect(
      [
        jobWorkflowName,
        deliveryWorkflowName,
        campaignWorkflowName,
        whatsappTemplateWorkflowName,
        warpExecutionWorkflowName,
        roomWorkflowName,
        turnWorkflowName,
        privateWarpWorkflowName,
        campaignContactWorkflowName,
        webhookDeliveryWorkflowName,
        webhookBatchWorkflowName,
        studioProduceWorkflowName,
        hookRunWorkflowName,
        enrollmentWorkflowName,
        cohortWorkflowName,
      ].sort(),
    ).toEqual(registered);
  });
});
