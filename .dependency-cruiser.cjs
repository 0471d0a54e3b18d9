/**
 * The layers of docs/architecture.md, enforced in `npm test` (npm run lint:layers).
 * A folder may import its own files and the layers below it, never one above or beside it
 * unless a rule below allows it.
 */
const layer = (name, allowed) => ({
  name: `${name}-imports-only-${allowed.join('-') || 'itself'}`,
  severity: 'error',
  comment: `src/${name} may import only ${['itself', ...allowed.map((l) => `src/${l}`)].join(', ')} (docs/architecture.md).`,
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: [`^src/${name}/`, ...allowed.map((l) => `^src/${l}/`)] },
});

module.exports = {
  forbidden: [
    layer('core', []),
    layer('sim', ['core']),
    layer('state', ['sim', 'core']),
    layer('webhooks', ['state', 'sim', 'core']),
    layer('api', ['state', 'sim', 'core']),
    layer('scripting', ['webhooks', 'state', 'sim', 'core']),
    layer('intercept', ['core']),
    {
      name: 'options-imports-only-scripting-state-core',
      severity: 'error',
      comment: "src/options.ts checks createSandbox options with the scripting layer's schemas: it may import src/scripting, src/state and src/core (docs/architecture.md).",
      from: { path: '^src/options\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/scripting/', '^src/state/', '^src/core/'] },
    },
    {
      name: 'root-imports-the-layers-below',
      severity: 'error',
      comment: 'src/root, the composition root (the parts of one sandbox, its lifecycle, restore), makes the parts of every layer below it; it never sees scenarios, the server or the faces.',
      from: { path: '^src/root/' },
      to: { path: '^src/', pathNot: ['^src/(root|intercept|api|scripting|webhooks|state|sim|core)/', '^src/options\\.ts$'] },
    },
    {
      name: 'scenarios-drive-the-root',
      severity: 'error',
      comment: 'src/scenarios (scenario files, triggers) drive a sandbox from outside, through src/root\'s SandboxBase and the scripting layer: they may import src/root and the layers below it, never src/sandbox.ts, the server or the faces.',
      from: { path: '^src/scenarios/' },
      to: { path: '^src/', pathNot: ['^src/(scenarios|root|api|scripting|webhooks|state|sim|core)/'] },
    },
    {
      name: 'the-sandbox-is-the-root-and-its-scenarios',
      severity: 'error',
      comment:
        "src/sandbox.ts, the public Sandbox, is the root (src/root) with scenarios and triggers (src/scenarios) on top; it hands the webhooks layer's checkReceiver (src/webhooks/check-receiver.ts) the events its triggers make.",
      from: { path: '^src/sandbox\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/(root|scenarios|state)/', '^src/options\\.ts$', '^src/webhooks/check-receiver\\.ts$'] },
    },
    {
      name: 'server-imports-the-sandbox-and-its-inputs',
      severity: 'error',
      comment: 'src/server may import itself, src/sandbox.ts (never src/root: its internals come through openSandbox), src/options.ts, src/scenarios, src/scripting, src/api, src/core, and the check of src/webhooks/check-receiver.ts that its check-receiver command prints (docs/architecture.md).',
      from: { path: '^src/server/' },
      to: { path: '^src/', pathNot: ['^src/(server|scenarios|scripting|api|core)/', '^src/sandbox\\.ts$', '^src/options\\.ts$', '^src/webhooks/check-receiver\\.ts$'] },
    },
    {
      name: 'the-face-is-not-the-vitest-entry',
      severity: 'error',
      comment: "src/index.ts, the package's face, exports from every layer; it never loads src/vitest.ts, which needs vitest (an optional peer).",
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/vitest\\.ts$' },
    },
    {
      name: 'vitest-entry-imports-only-the-face',
      severity: 'error',
      comment: 'src/vitest.ts (the svc-sandbox/vitest entry) uses the package as a user does: through src/index.ts only.',
      from: { path: '^src/vitest\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/index\\.ts$', '^src/matchers\\.ts$'] },
    },
    {
      name: 'test-runner-entries-import-the-matchers',
      severity: 'error',
      comment:
        'src/matchers.ts (toHaveEmitted, toHaveReceived) needs nothing at run time and imports only types of src/index.ts; src/jest.ts (the svc-sandbox/jest entry) imports it alone, so the Jest entry never loads a second copy of the sandbox.',
      from: { path: '^src/(matchers|jest)\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/matchers\\.ts$'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes the layers meaningless: break it by moving the shared piece down.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'only-the-faces-open-a-sandbox',
      severity: 'error',
      comment: 'Only src/index.ts and the server import src/sandbox.ts.',
      from: { path: '^src/', pathNot: ['^src/index\\.ts$', '^src/server/'] },
      to: { path: '^src/sandbox\\.ts$' },
    },
    {
      name: 'tests-stay-out-of-src',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '\\.test\\.ts$' },
  },
};
