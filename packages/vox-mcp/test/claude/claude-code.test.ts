/**
 * claude-code.ts: whether Claude Code is here, which binary, which version,
 * with stand-in executables in place of Claude Code (each only answers
 * --version, or never answers): a pin first, then VOX_CLAUDE_CODE, then PATH.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { describeClaudeCode, findClaudeCode } from '../../src/claude/claude-code.js';

const tmp = mkdtempSync(join(tmpdir(), 'vox-claude-code-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function standIn(dir: string, body: string): string {
  mkdirSync(join(tmp, dir), { recursive: true });
  const path = join(tmp, dir, 'claude');
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return path;
}

const onPath = standIn('path-bin', 'echo "2.1.332 (Claude Code)"');
const other = standIn('other', 'echo "2.1.300 (Claude Code)"');
const hangs = standIn('hangs', 'exec /bin/sleep 60');

test('claude on PATH is found, with its version: what the tests, setup and doctor all see', () => {
  const c = findClaudeCode({ PATH: join(tmp, 'path-bin') });
  assert.deepEqual(c, { path: onPath, from: 'PATH', version: '2.1.332' });
  assert.equal(describeClaudeCode(c!), `Claude Code 2.1.332 (${onPath}, from PATH)`);
});

test('VOX_CLAUDE_CODE before PATH, and a pin before both; none at all is undefined', () => {
  const env = { PATH: join(tmp, 'path-bin'), VOX_CLAUDE_CODE: other };
  assert.deepEqual(findClaudeCode(env), { path: other, from: 'VOX_CLAUDE_CODE', version: '2.1.300' });
  assert.equal(findClaudeCode(env, { pinned: { path: onPath, from: 'the CI cache' } })?.from, 'the CI cache');
  // A pin that is not there falls through to the next.
  assert.equal(findClaudeCode(env, { pinned: { path: undefined, from: 'the CI cache' } })?.path, other);
  assert.equal(findClaudeCode({ PATH: join(tmp, 'nowhere') }), undefined);
});

test('a claude that never answers --version is killed at the bound: present, version unknown, and why', () => {
  const c = findClaudeCode({ PATH: join(tmp, 'hangs') }, { timeoutMs: 300 });
  assert.equal(c?.path, hangs);
  assert.equal(c?.version, undefined);
  assert.match(c!.versionError!, /did not answer within 0\.3 s/);
});
