#!/usr/bin/env node
// Bundles the `vox` client into CommonJS files in packages/vox-mcp/dist/:
// - vox-say.cjs: `say` and `unmute` alone (src/cli/cli-say.ts), and vox-hook.cjs:
//   `hook` alone (src/cli/cli-hook.ts), the commands every shell script, Biff wall
//   and command hook starts. bin/vox.cjs compiles them itself, with a V8 code
//   cache, so they hold no import(): esbuild turns it into require();
// - vox-cli.cjs: every command (src/cli/cli.ts);
// - vox.cjs: a one-line file that loads bin/vox.cjs, which picks one of the
//   two by argv[2]. Hook settings written by older versions name dist/vox.cjs.
// Node 20 loads one CJS file markedly faster than a graph of ESM modules, and
// a small one faster than a big one (bench/say.mjs, docs/benchmarks.md).
// Commands stay lazily initialized inside vox-cli.cjs; dependencies stay external.
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('packages/vox-mcp/package.json', root), 'utf8'));
const dist = (name) => new URL(`packages/vox-mcp/dist/${name}`, root).pathname;
const src = (name) => new URL(`packages/vox-mcp/src/${name}`, root).pathname;

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  // @vox/protocol is bundled in; third-party packages load from node_modules when a command needs them.
  external: Object.keys(pkg.dependencies ?? {}).filter((d) => d !== '@vox/protocol'),
  // import.meta.url of the bundle, computed only when read (few commands need it).
  define: { 'import.meta.url': '__voxImportMeta.url' },
  banner: {
    js: "const __voxImportMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };",
  },
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
};
// In the hot bundles node:os is scripts/lazy-os.mjs, which loads it only when needed.
const lazyOs = fileURLToPath(new URL('scripts/lazy-os.mjs', root));
const lazyOsPlugin = {
  name: 'lazy-os',
  setup(b) {
    b.onResolve({ filter: /^(node:)?os$/ }, (args) => (args.importer === lazyOs ? undefined : { path: lazyOs }));
  },
};
// `vox hook` reads the agent table (src/cli/agent-table.ts), whose adapters load their
// settings code with import('./<agent>-settings.js') for `vox hooks` alone: in the hot
// bundles that import is a stub that throws, so the settings code (and codex-toml's
// smol-toml) is not in the file every hook reads.
const noSettingsPlugin = {
  name: 'no-settings',
  setup(b) {
    b.onResolve({ filter: /-settings\.js$/ }, (args) =>
      args.kind === 'dynamic-import' && /[\\/](?:agents|claude)[\\/][^\\/]+$/.test(args.importer)
        ? { path: args.path, namespace: 'no-settings' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-settings' }, () => ({
      contents: "throw new Error('an agent\\'s settings are written by vox hooks, not by the hot bundles');",
      loader: 'js',
    }));
  },
};
// bin/vox.cjs runs the hot bundles through vm.Script (with a V8 code cache), so:
// - they hold no import(): vm.Script has no loader for it;
// - each file is already wrapped as Node wraps a CommonJS module, so that the
//   source is compiled as read, not copied into a wrapper: every byte of the
//   source is young-generation heap, and the hot path allocates little enough
//   that a run usually ends before V8's first scavenge (about 1 MB; one costs
//   1 to 10 ms on a loaded machine, docs/benchmarks.md). So too the
//   whitespace and syntax minification (names stay, for stack traces; the
//   linked source map gives lines) and the check that the source is ASCII (a
//   single other character makes V8 store all of it two bytes a character).
// `node dist/vox-say.cjs` on its own does nothing: bin/vox.cjs runs them.
const hot = {
  ...common,
  supported: { 'dynamic-import': false },
  // Paths relative to src/: each lazily initialized module's wrapper is named by its path.
  absWorkingDir: src(''),
  plugins: [lazyOsPlugin, noSettingsPlugin],
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  banner: { js: `(function (exports, require, module, __filename, __dirname) { ${common.banner.js}` },
  footer: { js: '\n});' },
};
// `vox mcp` runs for a whole session, one per session: its own bundle, minified and ASCII like the hot ones
// (its source stays in the heap: one byte a character, a third of the whole CLI's size), loaded by require()
// with Node's compile cache as the whole CLI is (bin/vox.cjs).
const resident = {
  ...common,
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
};
await Promise.all([
  build({ ...common, entryPoints: [src('cli/cli.ts')], outfile: dist('vox-cli.cjs') }),
  build({ ...hot, entryPoints: [src('cli/cli-say.ts')], outfile: dist('vox-say.cjs') }),
  build({ ...hot, entryPoints: [src('cli/cli-hook.ts')], outfile: dist('vox-hook.cjs') }),
  build({ ...resident, entryPoints: [src('cli/cli-mcp.ts')], outfile: dist('vox-mcp.cjs') }),
]);
// What esbuild keeps of the source's comments may hold other characters: written as \u escapes (in a
// comment, where they are only text), so that V8 stores the whole CLI one byte a character.
{
  const text = readFileSync(dist('vox-cli.cjs'), 'utf8');
  const ascii = text.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
  if (ascii !== text) writeFileSync(dist('vox-cli.cjs'), ascii);
}
for (const name of ['vox-say.cjs', 'vox-hook.cjs', 'vox-mcp.cjs', 'vox-cli.cjs']) {
  const text = readFileSync(dist(name), 'latin1');
  const at = text.search(/[^\x00-\x7f]/);
  if (at >= 0)
    throw new Error(
      `dist/${name} holds a non-ASCII character at offset ${at}; write it as a \\u escape in the source (see the note on the hot bundles)`,
    );
}
// The single hot bundle of earlier builds.
for (const old of ['vox-hot.cjs', 'vox-hot.cjs.map']) rmSync(dist(old), { force: true });
writeFileSync(
  dist('vox.cjs'),
  "#!/usr/bin/env node\n'use strict';\n// Built by scripts/bundle.mjs: the entry older hook settings name; bin/vox.cjs picks the bundle.\nrequire('../bin/vox.cjs');\n",
);
chmodSync(dist('vox.cjs'), 0o755);

// The plugin's launcher (plugin/bin/vox.cjs) finds vox's bin/vox.cjs through
// this record when Claude Code has copied the plugin into its cache.
writeFileSync(
  new URL('plugin/vox-install.json', root),
  `${JSON.stringify({ vox: new URL('packages/vox-mcp/bin/vox.cjs', root).pathname }, null, 2)}\n`,
);
