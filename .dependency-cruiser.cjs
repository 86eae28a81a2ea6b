/** Layering rules (docs/architecture.md, "Layers"): imports only go downward. */
module.exports = {
  forbidden: [
    {
      name: 'app-is-pure',
      comment:
        'app/ imports nothing outside app/ except zod and re2js (pure JS): no node:*, DOM, React or Electron.',
      severity: 'error',
      from: { path: '^app/' },
      to: { pathNot: ['^app/', '^node_modules/zod/', '^node_modules/re2js/'] },
    },
    {
      name: 'app-no-node-builtins',
      severity: 'error',
      from: { path: '^app/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'renderer-only-app-and-browser',
      comment: 'renderer/ talks to the core only through the contract; it never imports main/.',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: ['^main/', '^e2e/', '^test/'] },
    },
    {
      name: 'renderer-no-node-builtins',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'renderer-no-node-packages',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^node_modules/(electron|better-sqlite3|ws|@modelcontextprotocol)/' },
    },
    {
      name: 'main-not-renderer',
      severity: 'error',
      from: { path: '^main/' },
      to: { path: '^renderer/' },
    },
    {
      name: 'only-electron-glue-imports-electron',
      severity: 'error',
      from: { pathNot: '^main/electron/' },
      to: { path: '^node_modules/(electron|\\.electron-types)/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^out/|\\.test\\.ts$)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.main.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
