/**
 * The layer rules of docs/ARCHITECTURE.md, checked by dependency-cruiser (`npm run lint:layers`,
 * part of `npm run typecheck`). Data flows one way:
 *
 *   format ◄─ engine ◄─ scenario ◄─ kube | sources | observe | trace ◄─ app ◄─ cli | vscode
 *   protocol (types shared with the webview) ◄─ app, cli, vscode, webview
 *
 * A library layer imports only what is below it; the front-ends (cli, vscode) use everything
 * below app through app at run time (type-only imports of lower layers are allowed: an adapter
 * may name a type it passes on); only src/vscode and src/extension.ts import 'vscode'.
 */
const LOWER_THAN_APP = '^src/(engine|scenario|kube|sources|observe|trace)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'format-is-a-leaf',
      comment: 'src/format (the trace vocabulary) imports nothing of the project.',
      severity: 'error',
      from: { path: '^src/format/' },
      to: { path: '^(src|webview)/', pathNot: '^src/format/' },
    },
    {
      name: 'engine-imports-only-format',
      comment: 'The client-go port knows nothing above it: no cluster, no trace recorder, no UI.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^(src|webview)/', pathNot: '^src/(engine|format)/' },
    },
    {
      name: 'scenario-imports-only-engine-and-format',
      severity: 'error',
      from: { path: '^src/scenario/' },
      to: { path: '^(src|webview)/', pathNot: '^src/(scenario|engine|format)/' },
    },
    {
      name: 'libraries-import-only-below',
      comment: 'kube, sources and trace sit side by side above the engine; none imports another or anything above.',
      severity: 'error',
      from: { path: '^src/(kube|sources|trace)/' },
      to: { path: '^(src|webview)/', pathNot: '^src/($1|engine|format|scenario)/' },
    },
    {
      name: 'observe-imports-only-kube-trace-below',
      comment:
        'observe follows a real process (issue 15): it reuses kube (credentials, the LIST and watch decoders) and trace (the recorder, export), never sources or anything above.',
      severity: 'error',
      from: { path: '^src/observe/' },
      to: { path: '^(src|webview)/', pathNot: '^src/(observe|kube|trace|engine|format|scenario)/' },
    },
    {
      name: 'protocol-imports-only-format',
      severity: 'error',
      from: { path: '^src/protocol/' },
      to: { path: '^(src|webview)/', pathNot: '^src/(protocol|format)/' },
    },
    {
      name: 'app-below-the-front-ends',
      comment: 'The use cases know no front-end.',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: '^(src/(cli|vscode)/|src/extension\\.ts$|webview/)' },
    },
    {
      name: 'worker-host-side-loads-no-engine',
      comment:
        "The host side of an engine worker (workerSession.ts, traceMirror.ts, workerProtocol.ts) only moves batches: the engine, the cluster client and the sources run in the worker (engineWorker.ts), never on the extension host's thread through these files. Types are fine.",
      severity: 'error',
      from: { path: '^src/app/(workerSession|traceMirror|workerProtocol)\\.ts$' },
      to: { path: '^src/(engine|kube|sources|scenario)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'only-a-worker-runs-the-worker-entry',
      comment: 'engineWorker.ts is a worker thread entry (workerSession.ts starts it by file name); imported anywhere it would run on the importer thread.',
      severity: 'error',
      from: { path: '^(src|webview)/' },
      to: { path: '^src/app/engineWorker\\.ts$' },
    },
    {
      name: 'front-ends-run-lower-layers-through-app',
      comment: 'cli and vscode import app, protocol and format; below app only types.',
      severity: 'error',
      from: { path: '^src/(cli/|vscode/|extension\\.ts$)' },
      to: { path: LOWER_THAN_APP, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'cli-and-vscode-never-import-each-other',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(vscode/|extension\\.ts$)' },
    },
    {
      name: 'vscode-never-imports-cli',
      severity: 'error',
      from: { path: '^src/(vscode/|extension\\.ts$)' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'only-src-vscode-imports-vscode',
      severity: 'error',
      from: { path: '^(src|webview)/', pathNot: '^src/(vscode/|extension\\.ts$)' },
      to: { path: '(^|/)vscode$|@types/vscode/' },
    },
    {
      name: 'webview-imports-only-protocol-and-format',
      severity: 'error',
      from: { path: '^webview/' },
      to: { path: '^src/', pathNot: '^src/(protocol|format)/' },
    },
    {
      name: 'no-run-time-cycles',
      comment: 'Modules that need each other at run time load half-initialised; a cycle through a type-only import is harmless.',
      severity: 'error',
      from: { path: '^(src|webview)/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-cycles-in-the-engine',
      comment:
        'Engine files import one way; the reflector phases reach the reflector only through reflectorContext.ts (docs/engine-reflector.md). Type-only imports count.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve would slip past every rule above.',
      severity: 'error',
      from: { path: '^(src|webview)/' },
      to: { couldNotResolve: true, pathNot: '^vscode$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|media)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
