// ESLint flat config: `npm run lint` (eslint .). Type-aware through the project's tsconfig.json.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Workflow code is bundled and runs in Temporal's deterministic sandbox: no Node built-ins, no
// client/worker/activity SDK, no services, activities or db. It may import @temporalio/workflow,
// @temporalio/common (its main entry is workflow-safe; lib/internal-non-workflow is not), zod and
// other files in workflows/ (contracts included).
const builtins = builtinModules.filter((m) => !m.startsWith('_')).join('|');
const SANDBOX = "Workflow code runs in Temporal's deterministic sandbox";
const workflowPatterns = [
  {
    regex: `^(node:|(${builtins})(/|$))`,
    message: `${SANDBOX}: Node built-ins are not available there; do I/O in an activity.`,
  },
  {
    regex: '^@temporalio/common/lib/internal-non-workflow',
    message: `${SANDBOX}: this part of @temporalio/common is not for workflows.`,
  },
  {
    regex: `^(?!\\.|node:|(${builtins})(/|$)|@temporalio/(workflow|common)(/|$)|zod(/|$))`,
    message: `${SANDBOX}: import only @temporalio/workflow, @temporalio/common, zod and files in workflows/.`,
  },
];
const outsideWorkflows = (up) => ({
  regex: up,
  message: `${SANDBOX}: import only files in workflows/ (contracts included), never services/, activities/, db/ or other app code.`,
});

export default defineConfig(
  globalIgnores([
    'node_modules/',
    '.data/',
    '.tools/',
    'coverage/',
    'workflow-bundle.js', // written by scripts/bundle-workflows.ts in the Docker image
    'console/assets/api/openapi.d.ts', // generated from the OpenAPI snapshot: npm run console:types
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Default options: a promise in a condition, a spread, or returned to a callback whose result
      // is ignored (an async signal or stream handler). A knex builder is thenable: give a
      // where((q) => { ... }) callback a block body. Express 5 routes are not flagged here.
      '@typescript-eslint/no-misused-promises': 'error',
      // `_` marks a parameter or destructured value kept for its position.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // A test reads JSON answers whose shape its assertions check; `any` is the honest type there.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Plain CommonJS run by Node or jest (jest.config.js, scripts/ensure-deps.js, test/setup/sequencer.js).
    files: ['**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The console's browser modules (served as they are, no build step; type-checked by
    // `tsc -p console/assets`, whose checkJs project they are, apart from the server's).
    files: ['console/assets/**/*.js'],
    languageOptions: { sourceType: 'module', globals: globals.browser },
  },
  {
    // Their hand-written types belong to that project too, not to the server's tsconfig.json.
    files: ['console/assets/**/*.d.ts'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['workflows/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...workflowPatterns, outsideWorkflows('^\\.\\./')] }],
    },
  },
  {
    files: ['workflows/*/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...workflowPatterns, outsideWorkflows('^\\.\\./\\.\\./')] }],
    },
  },
);
