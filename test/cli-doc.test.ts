/** docs/cli.md shows `vox --help` as it is, and lists every command (of the command table) and every flag that `vox <command> --help` and `voxd --help` print. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../packages/vox-mcp/src/cli/command-table.js';
import { ROOT, VOX, VOXD } from './helpers/daemon.js';

const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');

function flags(help: string): string[] {
  return [...new Set(help.match(/--[a-z][a-z-]*/g) ?? [])];
}

test('docs/cli.md shows vox --help as vox prints it', () => {
  const r = spawnSync(process.execPath, [VOX, '--help'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(doc.includes(`## \`vox\`\n\n\`\`\`\n${r.stdout}\`\`\`\n`), `docs/cli.md's "vox" section is not:\n${r.stdout}`);
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
