#!/usr/bin/env node
// The house limits (CONTRIBUTING.md, "The limits"), checked on the source:
// - no source file (packages/*/src/**/*.ts, not .d.ts) over 400 lines;
// - no class over 300 lines;
// - no import cycle among the packages' sources, following relative imports
//   and workspace package imports (`@vox/protocol`, ...) to their source;
//   type-only and dynamic imports count too: a cycle knots two concepts
//   together whether or not it breaks at load time;
// - every package.json has `exports`, with no wildcard subpath ("./*");
// - no deep import: nothing imports (or resolves: `require.resolve`,
//   `new URL(..., import.meta.url)`) a subpath a package does not export, and
//   no package's src, test or bin reaches into another package by relative
//   path (root test/ and bench/ may: tests test internals).
//
// `node scripts/check-house.mjs [ROOT]` prints the problems and exits 1 if
// there are any; test/house.test.ts runs checkHouse() on the repo and on
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
 * or `{ file, class: 'Name', lines, why }` for a class.
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
export function checkHouse(root) {
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
  const allowance = (file, cls) => ALLOWANCES.find((a) => a.file === rel(file) && a.class === cls);

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
  for (const cycle of cycles(graph)) problems.push(`import cycle: ${cycle.map(rel).join(' -> ')}`);
  return problems;
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
      `\n${problems.length} house problem${problems.length === 1 ? '' : 's'} (limits: ${MAX_FILE_LINES} lines a file, ${MAX_CLASS_LINES} a class, no cycles, explicit exports)`,
    );
    process.exit(1);
  }
  console.log('house: no problems');
}
