// The modules where a silent regression costs most, each mutated against the unit tests of its package.
// `breakAt` is the score recorded in CONTRIBUTING.md (rounded down): the weekly workflow fails below it;
// null until a group's first score is recorded.

/** The environment variable that hands a group's `tests` to the Vitest config Stryker's runner loads. */
export const MUTATION_TESTS_ENV = 'PORTCULLIS_MUTATION_TESTS';

export interface MutationGroup {
  /** The files Stryker mutates, relative to the repository root. */
  mutate: readonly string[];
  /** Where the tests that cover them live: Vitest runs only those importing a mutated file. */
  testDir: string;
  /** Which test files of `testDir` to run (globs relative to it); all of its `*.test.ts` when absent. */
  tests?: readonly string[];
  /** The recorded mutation score in percent; a run below it fails. */
  breakAt: number | null;
}

export const MUTATION_GROUPS = {
  accounts: {
    mutate: [
      'lib/accounts/src/password-hasher.ts',
      'lib/accounts/src/scrypt-phc.ts',
      'lib/accounts/src/password-check-limit.ts',
      'lib/accounts/src/credential-check.ts',
      'lib/accounts/src/cookie-sessions.ts',
      'lib/accounts/src/signed-value.ts',
      'lib/accounts/src/session-rules.ts',
      'lib/accounts/src/memory-sessions.ts',
      'lib/accounts/src/revocation-rules.ts',
      'lib/accounts/src/memory-denylist.ts',
      'lib/accounts/src/csrf-check.ts',
    ],
    testDir: 'lib/accounts/src',
    breakAt: 94,
  },
  'ratelimit-limiter': {
    mutate: [
      'services/ratelimit/src/limiter/*.ts',
      '!services/ratelimit/src/limiter/*.test.ts',
      '!services/ratelimit/src/limiter/test-limits.ts',
    ],
    testDir: 'services/ratelimit/src',
    breakAt: 94,
  },
  'ratelimit-matching': {
    mutate: ['services/ratelimit/src/config/match.ts', 'services/ratelimit/src/config/wildcard.ts'],
    testDir: 'services/ratelimit/src',
    breakAt: 91,
  },
  'ratelimit-backends': {
    mutate: [
      'services/ratelimit/src/backends/memory.ts',
      'services/ratelimit/src/backends/bucket-take.ts',
      'services/ratelimit/src/backends/per-second.ts',
      'services/ratelimit/src/backends/pipeline-window.ts',
    ],
    testDir: 'services/ratelimit/src',
    breakAt: 97,
  },
  'gateway-auth': {
    mutate: [
      'services/gateway/src/auth/jwt.ts',
      'services/gateway/src/auth/jwks-freshness.ts',
      'services/gateway/src/auth/idp-issuers.ts',
      'services/gateway/src/request-path.ts',
    ],
    testDir: 'services/gateway/src',
    breakAt: 98,
  },
  'gateway-authenticator': {
    mutate: ['services/gateway/src/auth/authenticator.ts', 'services/gateway/src/auth/token-verifier.ts'],
    testDir: 'services/gateway/src',
    breakAt: 90,
  },
  'inbox-signatures': {
    mutate: [
      'services/inbox/src/signatures/verify-signature.ts',
      'services/inbox/src/signatures/capture-signature.ts',
    ],
    testDir: 'services/inbox/src',
    breakAt: 95,
  },
  'inbox-delivery': {
    mutate: [
      'services/inbox/src/delivery/egress-policy.ts',
      'services/inbox/src/worker/retry-schedule.ts',
      'services/inbox/src/contract/backoff.ts',
    ],
    testDir: 'services/inbox/src',
    breakAt: 97,
  },
  'operator-reconcile': {
    mutate: [
      'operator/src/reconcile/reconciler.ts',
      'operator/src/reconcile/reconcile-kind.ts',
      'operator/src/reconcile/conditions.ts',
      'operator/src/reconcile/translation.ts',
    ],
    testDir: 'operator/src',
    breakAt: 95,
  },
  // against a real etcd and kube-apiserver, started for each mutant: the peers must be built (npm run peers)
  'operator-leader-election': {
    mutate: ['operator/src/leader-election.ts'],
    testDir: 'operator/test',
    tests: ['leader-election.test.ts'],
    breakAt: 99,
  },
} as const satisfies Record<string, MutationGroup>;

export type MutationGroupName = keyof typeof MUTATION_GROUPS;
