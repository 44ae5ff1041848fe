/** docs/cli.md shows `vox --help` as it is, and lists every command (of the command table) and every flag that `vox <command> --help` and `voxd --help` print. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../packages/vox-mcp/src/cli/command-table.js';
import { ROOT, VOX, VOXD } from '../helpers/daemon.js';

const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');

function flags(help: string): string[] {
  return [...new Set(help.match(/--[a-z][a-z-]*/g) ?? [])];
}

test('docs/cli.md shows vox --help as vox prints it', () => {
  const r = spawnSync(process.execPath, [VOX, '--help'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(
    doc.includes(`## \`vox\`\n\n\`\`\`\n${r.stdout}\`\`\`\n`),
    `docs/cli.md's "vox" section is not:\n${r.stdout}`,
  );
});

test('every vox command answers --help on stdout with exit 0, and it and its flags are documented', () => {
  for (const { name, aliases = [] } of COMMANDS) {
    assert.ok(doc.includes(`### \`vox ${name}\``), `docs/cli.md has no section for vox ${name}`);
    for (const c of [name, ...aliases]) {
      const r = spawnSync(process.execPath, [VOX, c, '--help'], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 0, `vox ${c} --help: ${r.stderr}`);
      assert.match(r.stdout, /Usage: vox/, c);
      for (const f of flags(r.stdout)) assert.ok(doc.includes(f), `vox ${c}: ${f} is not in docs/cli.md`);
    }
  }
});

test('voxd --help flags are documented', () => {
  const r = spawnSync(process.execPath, [VOXD, '--help'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0);
  for (const f of flags(r.stdout)) assert.ok(doc.includes(f), `voxd: ${f} is not in docs/cli.md`);
});

const DOC_FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/**
 * Every `vox ...` the docs show, `npx vox ...` as `vox ...`: each command of
 * the lines of sh blocks, and inline code spans that start with `vox ` or
 * `npx vox `. `shown` is as written.
 */
function docCommands(): Array<{ file: string; command: string; shown: string }> {
  const out: Array<{ file: string; command: string; shown: string }> = [];
  for (const file of DOC_FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const candidates: string[] = [];
    for (const block of text.matchAll(/```(?:sh|bash|console)\n([^]*?)```/g)) candidates.push(...block[1]!.split('\n'));
    for (const span of text.matchAll(/`((?:npx )?vox [^`\n]+)`/g)) candidates.push(span[1]!);
    for (const line of candidates) {
      // Each command of a list (`npm install && npx vox say hi`), up to a comment, a pipe or a redirect.
      const [list = ''] = line.replace(/^\$ /, '').split(/\s+#/);
      for (const part of list.split(/\s*(?:&&|\|\||;)\s*/)) {
        const shown = part.split(/\s*[|<>]/)[0]!.trim();
        if (/^(?:npx\s+)?vox\s/.test(shown)) out.push({ file, command: shown.replace(/^npx\s+/, ''), shown });
      }
    }
  }
  return out;
}

/** The section of README.md under `## heading`, up to the next `## `. */
function readmeSection(heading: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README.md has no "## ${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

test("README.md's introduction shows vox commands, and each is checked like the docs' commands", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const intro = readme.slice(0, readme.indexOf('\n## '));
  const shown = docCommands().filter((c) => c.file === 'README.md' && intro.includes(c.shown));
  assert.ok(
    shown.some((c) => c.command.startsWith('vox voices install ')),
    `the introduction's commands as found: ${JSON.stringify(shown)}`,
  );
});

test('no doc runs npx vox outside the clone: only `npx vox setup` (which puts vox on PATH) and the README set-up', () => {
  // npx finds vox only in the clone (elsewhere it asks the registry for another package named vox):
  // past the set-up, every command is `vox ...` from PATH.
  const setUp = readmeSection('Set up');
  const fromClone = [...setUp.matchAll(/```sh\n([^]*?)```/g)]
    .flatMap((b) => b[1]!.split('\n'))
    .filter((l) => /\bnpx vox\b/.test(l));
  assert.deepEqual(fromClone, ['npm install && npx vox say "Hello from vox"', 'npx vox setup']);
  const problems: string[] = [];
  for (const file of DOC_FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const [i, line] of text.split('\n').entries()) {
      for (const m of line.matchAll(/\bnpx vox\b[^`\n]*/g)) {
        if (/^npx vox setup\b/.test(m[0]) || fromClone.some((c) => line.includes(c))) continue;
        problems.push(`${file}:${i + 1}: ${m[0]}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('every vox command the docs show names a command of the table and only flags it takes', async () => {
  const specs = new Map<string, Record<string, { short?: string }>>();
  for (const entry of COMMANDS) {
    const { command } = await entry.load();
    for (const name of [entry.name, ...(entry.aliases ?? [])]) specs.set(name, command.spec.flags);
  }
  const shown = docCommands();
  assert.ok(shown.length > 50, `found only ${shown.length} vox commands in the docs`);
  const problems: string[] = [];
  for (const { file, command } of shown) {
    const [, name = ''] = command.split(/\s+/);
    // `vox --help`, `vox --version`, and placeholders (`vox <command>`, `vox NAME`) name no command.
    if (name.startsWith('-') || /^[<[]|^[A-Z]+:?$/.test(name) || name === '...' || name === '…') continue;
    const flags = specs.get(name);
    if (!flags) {
      problems.push(`${file}: "${command}": no command "${name}"`);
      continue;
    }
    for (const [flag] of command.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)) {
      if (flag !== '--help' && !Object.hasOwn(flags, flag.slice(2)))
        problems.push(`${file}: "${command}": vox ${name} takes no ${flag}`);
    }
    for (const [, short] of command.matchAll(/(?<=\s)-([a-zA-Z])(?=\s|$)/g)) {
      if (short !== 'h' && !Object.values(flags).some((f) => f.short === short))
        problems.push(`${file}: "${command}": vox ${name} takes no -${short}`);
    }
  }
  assert.deepEqual(problems, []);
});
