#!/usr/bin/env node
// The house limits (CONTRIBUTING.md, "The limits"), checked on the source:
// - no source file (packages/*/src/**/*.ts, not .d.ts) over 400 lines;
// - no class over 300 lines;
// - no import cycle among the packages' sources, following relative imports
//   and workspace package imports (`@vox/protocol`, ...) to their source;
//   type-only and dynamic imports count too: a cycle knots two concepts
//   together whether or not it breaks at load time;
// - every package.json has `exports`, with no wildcard subpath ("./*");
// - no deep import: nothing imports a subpath a package does not export, and
//   no package's src or test reaches into another package by relative path
//   (root test/ and bench/ may: tests test internals).
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

const literal = (node) => (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined);

/**
 * Every import of a file: the specifier, whether it is for types only, and
 * whether it is a real import (`static`: in the cycle graph) or a path resolved
 * at run time (`require.resolve(...)`, `new URL('../x', import.meta.url)`),
 * which must keep to the packages' exports too.
 */
function importsOf(sf) {
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = ts.isImportDeclaration(node) ? node.importClause : node;
      const named = ts.isImportDeclaration(node) ? clause?.namedBindings : node.exportClause;
      const allTypes = !!named && (ts.isNamedImports(named) || ts.isNamedExports(named)) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly) && !clause?.name;
      found.push({ spec: node.moduleSpecifier.text, typeOnly: !!clause?.isTypeOnly || allTypes });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push({ spec: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    } else if (ts.isCallExpression(node) && literal(node.arguments[0]) !== undefined && (ts.isIdentifier(node.expression) ? node.expression.text === 'require' : ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'resolve')) {
      found.push({ spec: literal(node.arguments[0]), typeOnly: false, runtime: true });
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL' && literal(node.arguments?.[0])?.startsWith('.') && /^import\.meta\.url$/.test(node.arguments[1]?.getText(sf) ?? '')) {
      found.push({ spec: literal(node.arguments[0]), typeOnly: false, runtime: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
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
    if (pkg.exports === undefined) problems.push(`${rel(file)}: no "exports"; list the package's entry points explicitly`);
    const entries = typeof pkg.exports === 'string' || Array.isArray(pkg.exports) ? { '.': pkg.exports } : (pkg.exports ?? {});
    for (const [subpath, target] of Object.entries(entries)) {
      if (subpath.includes('*')) {
        problems.push(`${rel(file)}: wildcard export "${subpath}"; list each subpath the package offers`);
        continue;
      }
      const to = typeof target === 'string' ? target : (target?.default ?? target?.import ?? Object.values(target ?? {}).find((v) => typeof v === 'string'));
      const src = typeof to === 'string' ? sourceFor(join(dir, to.replace(/^\.\/dist\//, './src/').replace(/\.d\.ts$/, '.ts'))) : undefined;
      exported.set(subpath, src);
    }
    packages.set(pkg.name ?? name, { dir, exports: exported });
  }
  const pkgDirs = [...packages.values()].map((p) => p.dir);
  const packageOf = (file) => pkgDirs.find((d) => file.startsWith(d + sep));
  const allowance = (file, cls) => ALLOWANCES.find((a) => a.file === rel(file) && a.class === cls);

  const files = [...pkgDirs.flatMap((d) => [...walk(join(d, 'src')), ...walk(join(d, 'test'))]), ...walk(join(root, 'test')), ...walk(join(root, 'bench')), ...walk(join(root, 'scripts'))];
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
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS);
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
          problems.push(`${rel(file)}: deep import "${spec}" reaches into ${rel(theirs)} by relative path; go through the package's name and an exported subpath`);
          continue;
        }
        target = sourceFor(abs);
      } else {
        const name = [...packages.keys()].find((n) => spec === n || spec.startsWith(`${n}/`));
        if (name === undefined) continue; // node: built-ins and third-party packages
        const subpath = spec === name ? '.' : `.${spec.slice(name.length)}`;
        const { exports } = packages.get(name);
        if (!exports.has(subpath)) {
          problems.push(`${rel(file)}: deep import "${spec}": ${name} does not export "${subpath}" (it exports ${[...exports.keys()].join(', ') || 'nothing'})`);
          continue;
        }
        target = exports.get(subpath);
      }
      if (isSrc && !runtime && target && packageOf(target) !== undefined && target.includes(`${sep}src${sep}`)) graph.get(file).add(target);
    }
  }
  for (const cycle of cycles(graph)) problems.push(`import cycle: ${cycle.map(rel).join(' -> ')}`);
  return problems;
}

/** One cycle for each strongly connected group of files (Tarjan), as a path back to its start. */
function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const groups = [];
  let next = 0;
  const connect = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const group = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || graph.get(v).has(v)) groups.push(new Set(group));
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  // The shortest path from the group's first file back to it, inside the group.
  return groups.map((group) => {
    const start = [...group].sort()[0];
    const from = new Map([[start, undefined]]);
    const queue = [start];
    while (queue.length) {
      const v = queue.shift();
      for (const w of [...graph.get(v)].sort()) {
        if (w === start) {
          const path = [start];
          for (let u = v; u !== start; u = from.get(u)) path.splice(1, 0, u);
          return [...path, start];
        }
        if (group.has(w) && !from.has(w)) {
          from.set(w, v);
          queue.push(w);
        }
      }
    }
    return [start, start];
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = checkHouse(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`\n${problems.length} house problem${problems.length === 1 ? '' : 's'} (limits: ${MAX_FILE_LINES} lines a file, ${MAX_CLASS_LINES} a class, no cycles, explicit exports)`);
    process.exit(1);
  }
  console.log('house: no problems');
}
