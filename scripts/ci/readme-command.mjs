#!/usr/bin/env node
// readme-command.mjs install|test: print one of the README's two set-up
// commands exactly as README.md writes them, so CI runs what a reader runs and
// breaks when the README changes. Each is the first line of the first ```sh
// block after its heading line ("Install and speak", "Run every test").
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const headings = { install: 'Install and speak', test: 'Run every test' };
const which = process.argv[2];
if (!(which in headings)) {
  console.error('usage: readme-command.mjs install|test');
  process.exit(2);
}
const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const at = readme.split('\n').findIndex((l) => l.startsWith(headings[which]));
const block = at < 0 ? null : /```sh\n([^\n]+)\n/.exec(readme.split('\n').slice(at + 1).join('\n'));
if (!block) {
  console.error(`readme-command: README.md has no \`\`\`sh block after a line starting "${headings[which]}"`);
  process.exit(1);
}
console.log(block[1]);
