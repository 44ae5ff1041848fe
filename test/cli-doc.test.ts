/** docs/cli.md lists every flag that `vox <command> --help` and `voxd --help` print. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, VOX, VOXD } from './helpers/daemon.js';

const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
const COMMANDS = ['say', 'unmute', 'stop', 'status', 'voices', 'chime', 'listen', 'mcp', 'hook', 'hooks', 'config', 'init', 'daemon', 'doctor', 'logs'];

function flags(help: string): string[] {
  return [...new Set(help.match(/--[a-z][a-z-]*/g) ?? [])];
}

test('every vox command answers --help on stdout with exit 0, and its flags are documented', () => {
  for (const c of COMMANDS) {
    const r = spawnSync(process.execPath, [VOX, c, '--help'], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 0, `vox ${c} --help: ${r.stderr}`);
    assert.match(r.stdout, /Usage: vox/, c);
    if (c !== 'unmute') assert.ok(doc.includes(`### \`vox ${c}\``), `docs/cli.md has no section for vox ${c}`);
    for (const f of flags(r.stdout)) assert.ok(doc.includes(f), `vox ${c}: ${f} is not in docs/cli.md`);
  }
});

test('voxd --help flags are documented', () => {
  const r = spawnSync(process.execPath, [VOXD, '--help'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0);
  for (const f of flags(r.stdout)) assert.ok(doc.includes(f), `voxd: ${f} is not in docs/cli.md`);
});
