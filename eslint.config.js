import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import regexp from 'eslint-plugin-regexp';

const bannedLibraries = [
  { name: 'js-yaml', message: 'Use yaml.' },
  { name: 'redis', message: 'Use ioredis.' },
  { name: 'axios', message: 'Use fetch.' },
  { name: 'node-fetch', message: 'Use fetch.' },
  { name: 'winston', message: 'Log through the kit logger.' },
  { name: 'express', message: 'Use fastify.' },
  { name: 'jest', message: 'Use vitest.' },
];

const SERVICE_PACKAGES = [
  '@portcullis/ratelimit',
  '@portcullis/gateway',
  '@portcullis/inbox',
  '@portcullis/operator',
];

/** What a service's sources never import: another service, or a workspace by its path. */
const SERVICE_BOUNDARIES = [
  { group: SERVICE_PACKAGES, message: 'Services talk over the network, never by import.' },
  { group: ['../../../lib/**', '../../lib/**'], message: 'Import a workspace by its package name.' },
];
const ROOT = import.meta.dirname;
const readManifest = (dir) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));

/** Every workspace folder the root package.json names (`lib/*` is each folder under lib/). */
const WORKSPACES = readManifest('.').workspaces.flatMap((glob) =>
  glob.endsWith('/*')
    ? readdirSync(join(ROOT, glob.slice(0, -2)))
        .map((name) => `${glob.slice(0, -2)}/${name}`)
        .filter((dir) => existsSync(join(ROOT, dir, 'package.json')))
    : [glob],
);

/**
 * A package's src/ is private: from every other workspace, hack/ and test/, only the files its package.json
 * `exports` names may be imported (in practice: by package name). Paths are resolved, so a relative
 * `../services/gateway/src/x.js` and a package subpath are caught alike; a package's own tests may import its src.
 */
const PACKAGE_ZONES = WORKSPACES.filter((dir) => existsSync(join(ROOT, dir, 'src'))).map((dir) => {
  const { name, exports = {} } = readManifest(dir);
  return {
    target: [...WORKSPACES.filter((other) => other !== dir), 'hack', 'test'],
    from: `${dir}/src`,
    except: Object.values(exports).map((entry) => `./${relative('src', entry)}`),
    message: `Import ${name} by its package name: only its entry is public.`,
  };
});

/** A path into another workspace's src/, even to its entry: everywhere, a workspace is imported by its name. */
const WORKSPACE_BY_PATH = {
  regex: '^(\\.\\./)+(lib/[^/]+|services/[^/]+|operator)/src(/|$)',
  message: 'Import a workspace by its package name, never by path.',
};

/** The banned libraries plus the import boundaries of one part of the tree. */
const restrictImports = (patterns = []) => ({
  'no-restricted-imports': ['error', { paths: bannedLibraries, patterns: [WORKSPACE_BY_PATH, ...patterns] }],
});

// The inbox's rooms (services/inbox/README.md, "Reading the code"): four programs — the server, the forwarding
// worker, the CLI and the web inspector — import only the contract (src/contract/) and delivery
// (src/delivery/), never each other; the server and the worker also share the stores (src/store/,
// src/forwarding-store/) and settings.ts, errors.ts, error-mapper.ts. The one arrow between programs:
// app.ts runs the worker's forwarding part in its own process in local mode (memory store).
// Where two blocks match a file, the later one's no-restricted-imports replaces the earlier one's: each block
// lists all its room's limits.
const INBOX = 'services/inbox/src';
const SERVER_MESSAGE =
  'The server imports the contract, delivery and the stores, never the CLI or the worker.';
const WORKER_MESSAGE =
  'The worker imports the contract, delivery, the stores and settings/errors, never the server or the CLI.';
/** One room's files and the relative imports (a regular expression) they may not make. */
const inboxRoom = ({ files, ignores = [], forbid, message }) => ({
  files,
  ignores,
  rules: restrictImports([...SERVICE_BOUNDARIES, { regex: forbid, message }]),
});
const INBOX_ROOMS = [
  inboxRoom({
    files: [`${INBOX}/**/*.ts`],
    ignores: [
      `${INBOX}/*.ts`,
      ...['contract', 'delivery', 'cli', 'store', 'forwarding-store', 'worker'].map(
        (room) => `${INBOX}/${room}/**`,
      ),
    ],
    forbid: String.raw`^\.\./(cli|worker)/|^(\.\./){2,}web/`,
    message: SERVER_MESSAGE,
  }),
  inboxRoom({
    files: [`${INBOX}/*.ts`],
    // the package-wide checks (every error code once, every setting read) cover the CLI too
    // index.ts is the package entry for hack/, bench/ and test/: it names both programs' start functions
    ignores: [`${INBOX}/*.test.ts`, `${INBOX}/worker-main.ts`, `${INBOX}/index.ts`],
    forbid: String.raw`^\./cli/|^\./worker/(?!local-forwarding-parts\.js$)`,
    message: `${SERVER_MESSAGE} (app.ts runs worker/local-forwarding-parts.ts in local mode)`,
  }),
  inboxRoom({
    files: ['live', 'export', 'search'].map((room) => `${INBOX}/${room}/**/*.ts`),
    forbid: String.raw`^\.\./(cli|worker|api)/|^(\.\./){2,}web/`,
    message: 'live/, export/ and search/ sit under the API routes: never api/, the CLI or the worker.',
  }),
  inboxRoom({
    files: [`${INBOX}/contract/**/*.ts`],
    forbid: String.raw`^\.\./`,
    message: 'The contract is a leaf: it imports nothing of the inbox outside src/contract/.',
  }),
  inboxRoom({
    files: [`${INBOX}/delivery/**/*.ts`],
    forbid: String.raw`^\.\./(?!contract/)`,
    message: 'Delivery imports only the contract.',
  }),
  inboxRoom({
    files: [`${INBOX}/store/**/*.ts`],
    forbid: String.raw`^\.\./(?!contract/|errors\.js$)`,
    message: 'The store imports only the contract and errors.ts.',
  }),
  inboxRoom({
    files: [`${INBOX}/forwarding-store/**/*.ts`],
    forbid: String.raw`^\.\./(?!(contract|store)/|(errors|settings)\.js$)`,
    message: 'The forwarding store imports only the contract, the store, errors.ts and settings.ts.',
  }),
  inboxRoom({
    files: [`${INBOX}/worker/**/*.ts`],
    forbid: String.raw`^\.\./(?!(contract|delivery|store|forwarding-store)/|(settings|errors|error-mapper)\.js$)`,
    message: WORKER_MESSAGE,
  }),
  inboxRoom({
    files: [`${INBOX}/worker-main.ts`],
    forbid: String.raw`^\./(?!worker/|settings\.js$)`,
    message: WORKER_MESSAGE,
  }),
  inboxRoom({
    files: [`${INBOX}/cli/**/*.ts`],
    forbid: String.raw`^\.\./(?!(contract|delivery)/)`,
    message:
      'The CLI (published to npm) imports only the contract and delivery, never the server or the worker.',
  }),
  inboxRoom({
    files: ['services/inbox/web/**/*.{ts,tsx}'],
    forbid: String.raw`^(\.\./)+src/(?!contract/)`,
    message: 'The web inspector imports only the contract (src/contract/), never the server.',
  }),
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'coverage/**',
      'test-artifacts/**',
      'protos/**',
      'services/*/web/dist/**',
      'dist/**',
      '.tmp/**',
      '.cache/**',
      '.stryker-tmp/**',
      'reports/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    // Without a TypeScript resolver and parser every import is unresolved, or never parsed, and
    // import-x/no-cycle sees no edges at all (test/lint-guards.test.ts plants a cycle to prove it does).
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.mts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: `${import.meta.dirname}/tsconfig.json` }),
      ],
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'max-params': ['error', 3],
      'no-console': 'error',
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: PACKAGE_ZONES }],
      ...restrictImports(),
    },
  },
  {
    files: ['lib/**/*.ts'],
    rules: restrictImports([
      { group: SERVICE_PACKAGES, message: 'lib/ never imports a service.' },
      { group: ['**/services/**', '**/operator/**'], message: 'lib/ never imports a service.' },
    ]),
  },
  {
    files: ['services/*/src/**/*.ts', 'operator/src/**/*.ts'],
    rules: restrictImports(SERVICE_BOUNDARIES),
  },
  ...INBOX_ROOMS,
  {
    // Issue 34: ioredis copies a defineCommand'd command into a pipeline only when the pipeline is made, so
    // an auto-pipeline opened before refused it and handed its batch's replies to the wrong callers.
    files: ['**/*.ts'],
    ignores: ['lib/redis/src/script.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          property: 'defineCommand',
          message: "Run Lua through @portcullis/redis's defineScript (EVAL/EVALSHA), never defineCommand.",
        },
      ],
    },
  },
  {
    // Handler classes are the routes module's unit (`[method, path, Class, 'method']`): static methods only.
    files: ['services/gateway/src/handlers/**/*.ts', 'services/gateway/test/**/*.ts'],
    rules: { '@typescript-eslint/no-extraneous-class': 'off' },
  },
  {
    // @kubernetes/client-node's models are generated classes with no behaviour; its API takes and returns
    // plain objects in their shape, which these two rules would forbid.
    files: ['operator/**/*.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-misused-spread': 'off',
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      'max-params': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // issue 34: a regular expression that backtracks super-linearly lets one request hold the event loop
    // (test/regexp-lint.test.ts plants one of each kind to prove these fail)
    files: ['**/*.{ts,tsx,mts}'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
);
