#!/usr/bin/env node
// The house limits (CONTRIBUTING.md, "The limits"), checked on the source:
// - no source file (packages/*/src/**/*.ts, not .d.ts) over 400 lines;
// - no class over 300 lines;
// - no import cycle among the packages' sources, following relative imports
//   and workspace package imports (`@vox/protocol`, ...) to their source;
//   type-only and dynamic imports count too: a cycle knots two concepts
//   together whether or not it breaks at load time;
// - no import cycle between the folders of a package: folder A imports
//   folder B and B imports A, directly or through others. A folder is a
//   first level folder of the package's src (`daemon/`, with all below it:
//   `cli/commands/daemon/` is `cli/`); a file in src itself (`errors.ts`) is
//   a folder of its own, not the package root, since every part imports the
//   root's shared modules (`errors.ts`) and the entry there imports the parts;
// - every package.json has `exports`, with no wildcard subpath ("./*");
// - no deep import: nothing imports (or resolves: `require.resolve`,
//   `new URL(..., import.meta.url)`) a subpath a package does not export, and
//   no package's src, test or bin reaches into another package by relative
//   path (root test/ and bench/ may: tests test internals).
//
// `node scripts/check-house.mjs [ROOT]` prints the problems and exits 1 if
// there are any; test/repo/house.test.ts runs checkHouse() on the repo and on
// fixture trees. TypeScript's own parser finds the imports and the classes.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_CLASS_LINES = 300;

/**
 * Files allowed past a limit, each with its reason (keep this empty unless
 * one truly must be larger): `{ file: 'packages/x/src/y.ts', lines: 450, why: '...' }`,
 * or `{ file, class: 'Name', lines, why }` for a class; or a knot of folders
 * allowed for a while: `{ package: 'packages/x', folders: ['a/', 'b/'], why }`
 * lets a folder cycle pass whose folders are all among these.
 */
export const ALLOWANCES = [];

const CODE = /\.(?:ts|mts|cts|mjs|cjs|js)$/;

function walk(dir, out = []) {
  let names;
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (CODE.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

const countLines = (text) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0));

const literal = (node) =>
  node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;

/**
 * Every import of a file (static, dynamic, type-only): its specifier, and
 * `runtime` for a path resolved at run time (`require.resolve(...)`,
 * `new URL('../x', import.meta.url)`), which is no edge of the cycle graph
 * but must keep to the packages' exports too.
 */
function importsOf(sf) {
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      found.push({ spec: literal(node.moduleSpecifier) });
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      found.push({ spec: literal(node.arguments[0]) });
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      found.push({ spec: literal(node.argument.literal) });
    else if (
      ts.isCallExpression(node) &&
      (ts.isIdentifier(node.expression)
        ? node.expression.text === 'require'
        : ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'resolve')
    ) {
      found.push({ spec: literal(node.arguments[0]), runtime: true });
    } else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.[1]?.getText(sf) === 'import.meta.url'
    ) {
      found.push({ spec: literal(node.arguments[0]), runtime: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found.filter((f) => f.spec !== undefined);
}

/** A source file for a resolved path: `x.js` is written for `x.ts`. */
function sourceFor(path) {
  const candidates = [path, path.replace(/\.(m|c)?js$/, '.$1ts'), `${path}.ts`, join(path, 'index.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** Check the tree at `root`; returns one message per problem, each naming its file. */
export function checkHouse(root, allowances = ALLOWANCES) {
  root = resolve(root);
  const rel = (p) => relative(root, p).split(sep).join('/');
  const problems = [];
  const packages = new Map(); // name -> { dir, exports: Map(subpath -> source file or undefined) }
  const pkgRoot = join(root, 'packages');
  for (const name of existsSync(pkgRoot) ? readdirSync(pkgRoot).sort() : []) {
    const dir = join(pkgRoot, name);
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    const exported = new Map();
    if (pkg.exports === undefined)
      problems.push(`${rel(file)}: no "exports"; list the package's entry points explicitly`);
    const entries =
      typeof pkg.exports === 'string' || Array.isArray(pkg.exports) ? { '.': pkg.exports } : (pkg.exports ?? {});
    for (const [subpath, target] of Object.entries(entries)) {
      if (subpath.includes('*')) {
        problems.push(`${rel(file)}: wildcard export "${subpath}"; list each subpath the package offers`);
        continue;
      }
      const to =
        typeof target === 'string'
          ? target
          : (target?.default ?? target?.import ?? Object.values(target ?? {}).find((v) => typeof v === 'string'));
      const src =
        typeof to === 'string'
          ? sourceFor(join(dir, to.replace(/^\.\/dist\//, './src/').replace(/\.d\.ts$/, '.ts')))
          : undefined;
      exported.set(subpath, src);
    }
    packages.set(pkg.name ?? name, { dir, exports: exported });
  }
  const pkgDirs = [...packages.values()].map((p) => p.dir);
  const packageOf = (file) => pkgDirs.find((d) => file.startsWith(d + sep));
  const allowance = (file, cls) => allowances.find((a) => a.file === rel(file) && a.class === cls);

  const files = [
    ...pkgDirs.flatMap((d) => ['src', 'test', 'bin'].flatMap((sub) => walk(join(d, sub)))),
    ...walk(join(root, 'test')),
    ...walk(join(root, 'bench')),
    ...walk(join(root, 'scripts')),
  ];
  const graph = new Map(); // source file -> Set of source files it imports
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const own = packageOf(file);
    const isSrc = own !== undefined && file.startsWith(join(own, 'src') + sep) && /\.m?ts$/.test(file);
    if (isSrc) {
      const lines = countLines(text);
      const limit = allowance(file)?.lines ?? MAX_FILE_LINES;
      if (lines > limit) problems.push(`${rel(file)}: ${lines} lines, limit ${limit}`);
    }
    const sf = ts.createSourceFile(
      file,
      text,
      ts.ScriptTarget.Latest,
      true,
      file.endsWith('ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS,
    );
    if (isSrc) {
      const visit = (node) => {
        if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
          const name = node.name?.text ?? '(anonymous)';
          const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
          const lines = sf.getLineAndCharacterOfPosition(node.end).line - start + 1;
          const limit = allowance(file, name)?.lines ?? MAX_CLASS_LINES;
          if (lines > limit) problems.push(`${rel(file)}:${start + 1}: class ${name} ${lines} lines, limit ${limit}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
      graph.set(file, new Set());
    }
    for (const { spec, runtime } of importsOf(sf)) {
      let target;
      if (spec.startsWith('.')) {
        const abs = resolve(dirname(file), spec);
        const theirs = packageOf(abs);
        if (own !== undefined && theirs !== undefined && theirs !== own) {
          problems.push(
            `${rel(file)}: deep import "${spec}" reaches into ${rel(theirs)} by relative path; go through the package's name and an exported subpath`,
          );
          continue;
        }
        target = sourceFor(abs);
      } else {
        const name = [...packages.keys()].find((n) => spec === n || spec.startsWith(`${n}/`));
        if (name === undefined) continue; // node: built-ins and third-party packages
        const subpath = spec === name ? '.' : `.${spec.slice(name.length)}`;
        const { exports } = packages.get(name);
        if (!exports.has(subpath)) {
          problems.push(
            `${rel(file)}: deep import "${spec}": ${name} does not export "${subpath}" (it exports ${[...exports.keys()].join(', ') || 'nothing'})`,
          );
          continue;
        }
        target = exports.get(subpath);
      }
      if (isSrc && !runtime && target && packageOf(target) !== undefined && target.includes(`${sep}src${sep}`))
        graph.get(file).add(target);
    }
  }
  const fileCycles = cycles(graph);
  for (const cycle of fileCycles) problems.push(`import cycle: ${cycle.map(rel).join(' -> ')}`);
  for (const dir of pkgDirs) problems.push(...folderCycles(dir, graph, rel, allowances, fileCycles));
  return problems;
}

/**
 * The folder of a source file in `src`: its first level folder (`daemon/`),
 * or the file itself when it sits in src (`errors.ts`).
 */
function folderOf(src, file) {
  const parts = relative(src, file).split(sep);
  return parts.length === 1 ? parts[0] : `${parts[0]}/`;
}

/**
 * Cycles between the folders of the package at `dir`: each knot (a strongly
 * connected set of folders) is named once, by its shortest cycle through its
 * first folder with one import for each step, and the other folders it holds.
 * A knot whose folders are all in one of `allowances` passes, and one whose
 * folders are exactly those of a cycle of files (`fileCycles`) is named
 * there already.
 */
export function folderCycles(dir, graph, rel, allowances = [], fileCycles = []) {
  const src = join(dir, 'src');
  const named = fileCycles
    .filter((c) => c[0].startsWith(src + sep))
    .map((c) => [...new Set(c.map((f) => folderOf(src, f)))].sort().join(' '));
  const folders = new Map(); // folder -> Map(folder it imports -> [file, imported file], the first in order)
  for (const file of [...graph.keys()].sort()) {
    if (!file.startsWith(src + sep)) continue;
    const from = folderOf(src, file);
    if (!folders.has(from)) folders.set(from, new Map());
    for (const target of [...graph.get(file)].sort()) {
      if (!target.startsWith(src + sep)) continue;
      const to = folderOf(src, target);
      if (to !== from && !folders.get(from).has(to)) folders.get(from).set(to, [file, target]);
    }
  }
  const problems = [];
  for (const knot of stronglyConnected(folders)) {
    if (knot.length < 2) continue;
    const allowed = allowances.find(
      (a) => a.package === rel(dir) && Array.isArray(a.folders) && knot.every((f) => a.folders.includes(f)),
    );
    if (allowed || named.includes(knot.join(' '))) continue;
    const cycle = shortestCycle(folders, knot);
    const steps = cycle.slice(1).map((to, i) => {
      const [file, target] = folders.get(cycle[i]).get(to);
      const short = (f) => relative(src, f).split(sep).join('/');
      return `${short(file)} imports ${short(target)}`;
    });
    const others = knot.filter((f) => !cycle.includes(f));
    problems.push(
      `folder cycle in ${rel(src)}: ${cycle.join(' -> ')} (${steps.join('; ')})${others.length ? `; the knot also holds ${others.join(', ')}` : ''}`,
    );
  }
  return problems;
}

/** Tarjan's strongly connected components of `edges` (node -> Map of nodes), each sorted, in order of their first node. */
function stronglyConnected(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  const visit = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (const w of [...(edges.get(v)?.keys() ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const knot = [];
      for (let w; w !== v;) {
        w = stack.pop();
        onStack.delete(w);
        knot.push(w);
      }
      out.push(knot.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** The shortest cycle from the knot's first node back to it, staying in the knot: [a, b, ..., a]. */
function shortestCycle(edges, knot) {
  const start = knot[0];
  const from = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of [...edges.get(v).keys()].sort()) {
      if (!knot.includes(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = from.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/**
 * Import cycles: from each file in turn, the shortest path back to it, if any;
 * a file already on a cycle found starts no other, so each knot is named once
 * or a few times, never once per file in it.
 */
function cycles(graph) {
  const found = [];
  const onCycle = new Set();
  for (const start of [...graph.keys()].sort()) {
    if (onCycle.has(start)) continue;
    const from = new Map([[start, undefined]]);
    const queue = [start];
    search: while (queue.length) {
      const v = queue.shift();
      for (const w of [...graph.get(v)].sort()) {
        if (w === start) {
          const path = [start];
          for (let u = v; u !== start; u = from.get(u)) path.splice(1, 0, u);
          for (const u of path) onCycle.add(u);
          found.push([...path, start]);
          break search;
        }
        if (graph.has(w) && !from.has(w)) {
          from.set(w, v);
          queue.push(w);
        }
      }
    }
  }
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = checkHouse(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(
      `\n${problems.length} house problem${problems.length === 1 ? '' : 's'} (limits: ${MAX_FILE_LINES} lines a file, ${MAX_CLASS_LINES} a class, no cycles between files or folders, explicit exports)`,
    );
    process.exit(1);
  }
  console.log('house: no problems');
}
