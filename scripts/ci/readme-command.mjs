#!/usr/bin/env node
// readme-command.mjs install|setup|test [README]: print one of the README's
// set-up commands exactly as README.md writes them, so CI runs what a reader
// runs and breaks when the README changes. Each is the one line of the first
// ```sh block after its heading line ("Install and speak", "Put vox on PATH",
// "Run every test").
// A block of more than one line is an error: CI would run only part of what
// the reader is told to run. README defaults to this repository's README.md
// (test/repo/ci-scripts.test.ts passes others).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const headings = { install: 'Install and speak', setup: 'Put vox on PATH', test: 'Run every test' };
const [which, file = fileURLToPath(new URL('../../README.md', import.meta.url))] = process.argv.slice(2);
if (!(which in headings)) {
  console.error('usage: readme-command.mjs install|setup|test [README]');
  process.exit(2);
}
const lines = readFileSync(file, 'utf8').split('\n');
const at = lines.findIndex((l) => l.startsWith(headings[which]));
const block = at < 0 ? null : /```sh\n([^]*?)\n?```/.exec(lines.slice(at + 1).join('\n'));
if (!block) {
  console.error(`readme-command: ${file} has no \`\`\`sh block after a line starting "${headings[which]}"`);
  process.exit(1);
}
const commands = block[1].split('\n').filter((l) => l.trim() !== '');
if (commands.length !== 1) {
  console.error(
    `readme-command: the \`\`\`sh block after "${headings[which]}" in ${file} holds ${commands.length} lines; CI runs it as one command, so it must hold exactly one`,
  );
  process.exit(1);
}
console.log(commands[0]);
