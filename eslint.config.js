import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

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

/** The banned libraries plus the import boundaries of one part of the tree. */
const restrictImports = (patterns) => ({
  'no-restricted-imports': ['error', { paths: bannedLibraries, patterns }],
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
    ignores: [`${INBOX}/*.test.ts`, `${INBOX}/worker-main.ts`],
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
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
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
      'no-restricted-imports': ['error', { paths: bannedLibraries }],
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
    files: ['services/*/src/**/*.ts'],
    rules: restrictImports(SERVICE_BOUNDARIES),
  },
  ...INBOX_ROOMS,
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
);
