/**
 * A wire type and its JSON schema cannot drift apart: the compiler refuses a
 * field in one and not the other (src/wire/schema-type.ts). Proven by
 * compiling fixtures/drift.ts with the package's own compiler options, and
 * every route module is checked to pair each request schema with its type.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '../..');
const fixture = join(here, 'fixtures/drift.ts');
const DIRECTIVE = /^\/\/ @ts-expect-error drift: (\w+)$/;

/** The diagnostics of the fixture, compiled as the package is, with its text replaced by `text`. */
function compile(text: string): readonly ts.Diagnostic[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(pkg, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    },
  )!;
  const options = { ...config.options, noEmit: true, composite: false, incremental: false, rootDir: undefined };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => (ts.sys.resolvePath(name) === ts.sys.resolvePath(fixture) ? text : read(name));
  const program = ts.createProgram({ rootNames: [fixture], options, host });
  return ts.getPreEmitDiagnostics(program);
}

const show = (ds: readonly ts.Diagnostic[]) =>
  ds.map((d) => `${d.file ? d.file.fileName : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`).join('\n');

test('the fixture compiles: the agreeing pairs pass and every drifted pair fails (its @ts-expect-error is used)', () => {
  const ds = compile(readFileSync(fixture, 'utf8'));
  assert.equal(ds.length, 0, show(ds));
});

test('without the directives, each drifted pair fails at its line, naming the field', () => {
  const lines = readFileSync(fixture, 'utf8').split('\n');
  const expected = new Map<number, string>();
  lines.forEach((line, i) => {
    const m = DIRECTIVE.exec(line);
    if (m) expected.set(i + 1, m[1]!); // the checked line is the next one (0-based i + 1)
  });
  assert.ok(expected.size >= 8, 'the fixture marks its drifted pairs');
  const ds = compile(lines.map((l) => (DIRECTIVE.test(l) ? '' : l)).join('\n'));
  const got = new Map<number, string>();
  for (const d of ds) {
    assert.ok(d.file && d.start !== undefined, show([d]));
    got.set(d.file.getLineAndCharacterOfPosition(d.start).line, ts.flattenDiagnosticMessageText(d.messageText, ' '));
  }
  assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort(), show(ds));
  for (const [line, field] of expected) {
    const message = got.get(line)!;
    assert.match(message, /does not satisfy the constraint 'true'/);
    assert.match(message, new RegExp(`"${field}"`), `line ${line + 1}: ${message}`);
  }
});

test('every request schema of the wire is checked against its type', () => {
  const dir = join(pkg, 'src/wire');
  let schemas = 0;
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const text = readFileSync(join(dir, name), 'utf8');
    for (const m of text.matchAll(/^export const (\w+)RequestSchema\b/gm)) {
      schemas++;
      const type = m[1]![0]!.toUpperCase() + m[1]!.slice(1) + 'Request';
      assert.match(
        text,
        new RegExp(`Agreed<SchemaAgrees<${type}, typeof ${m[1]}RequestSchema>>`),
        `${name}: ${m[1]}RequestSchema has no compile-time check against ${type}`,
      );
    }
  }
  assert.ok(schemas >= 10, `found ${schemas} request schemas`);
});
