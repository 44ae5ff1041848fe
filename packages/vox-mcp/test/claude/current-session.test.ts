/**
 * The session id a command hook notes for its Claude Code, and what `vox
 * mcp` takes from it (claude/current-session.ts): written only when it
 * changed, read only when newer than what vox mcp knows, bounded against
 * what else may sit at its place, and swept of ended processes.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { notedSession, noteSession, parentPids } from '../../src/claude/current-session.js';

const home = mkdtempSync(join(tmpdir(), 'vox-current-session-'));
after(() => rmSync(home, { recursive: true, force: true }));
const dir = join(home, 'sessions');

test('a hook notes its payload id under its Claude Code pid, once; vox mcp takes only a note newer than what it knows', () => {
  const env = { VOX_HOME: home, CLAUDE_PID: '4242' };
  noteSession(env, 'aaaa-1');
  const file = join(dir, 'claude-4242');
  assert.equal(readFileSync(file, 'utf8'), 'aaaa-1\n');
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  // The same id again writes nothing (the usual hook).
  const past = new Date(Date.now() - 10_000);
  utimesSync(file, past, past);
  const at = statSync(file).mtimeMs; // as the file system keeps it (Node 22 gives 1796305750961.999 for ...962)
  noteSession(env, 'aaaa-1');
  assert.equal(statSync(file).mtimeMs, at);
  assert.deepEqual(notedSession(env, [4242], at - 1), { id: 'aaaa-1', atMs: at });
  assert.equal(notedSession(env, [4242], at), undefined, 'not newer than the adoption');
  // A new id (a /clear) is newer.
  noteSession(env, 'bbbb-2');
  assert.equal(notedSession(env, [1, 4242], at)?.id, 'bbbb-2', 'any of the parents');
  assert.equal(notedSession(env, [4243], 0), undefined, "another Claude Code's note is not ours");
  assert.deepEqual(readdirSync(dir), ['claude-4242'], 'no temporary file left');
});

test('nothing is noted without a Claude Code pid, or for an id that could not be a label', () => {
  const env = { VOX_HOME: join(home, 'none') };
  noteSession(env, 'cccc-3');
  noteSession({ ...env, CLAUDE_PID: 'abc' }, 'cccc-3');
  noteSession({ ...env, CLAUDE_PID: '0' }, 'cccc-3');
  noteSession({ ...env, CLAUDE_PID: '77' }, 'two\nlines');
  noteSession({ ...env, CLAUDE_PID: '77' }, 'x'.repeat(201));
  assert.throws(() => readdirSync(join(home, 'none', 'sessions')), /ENOENT/);
});

test('what is not a note at its place (a FIFO, a link to /dev/zero, a directory, garbage) is never trusted and never blocks', () => {
  const env = { VOX_HOME: join(home, 'bad') };
  const d = join(home, 'bad', 'sessions');
  mkdirSync(d, { recursive: true });
  execFileSync('mkfifo', [join(d, 'claude-11')]);
  symlinkSync('/dev/zero', join(d, 'claude-12'));
  mkdirSync(join(d, 'claude-13'));
  writeFileSync(join(d, 'claude-14'), 'no newline at the end');
  assert.equal(notedSession(env, [11, 12, 13, 14], 0), undefined);
  // A hook replaces the FIFO with its note, without blocking on it.
  noteSession({ ...env, CLAUDE_PID: '11' }, 'dddd-4');
  assert.equal(notedSession(env, [11], 0)?.id, 'dddd-4');
});

test('past 64 notes, those of processes that ended are swept; live ones stay', () => {
  const env = { VOX_HOME: join(home, 'many') };
  const d = join(home, 'many', 'sessions');
  mkdirSync(d, { recursive: true });
  // Pids of processes that have ended (each ran and was reaped).
  const dead = Array.from({ length: 70 }, () => spawnSync('true').pid);
  for (const pid of dead) writeFileSync(join(d, `claude-${pid}`), 'old\n');
  noteSession({ ...env, CLAUDE_PID: String(process.pid) }, 'eeee-5');
  const left = readdirSync(d);
  assert.ok(left.includes(`claude-${process.pid}`));
  assert.ok(left.length < 10, `swept: ${left.length} left`);
});

test("vox mcp's candidates for its Claude Code: its parent first, then the parent's ancestors", () => {
  const pids = parentPids();
  assert.equal(pids[0], process.ppid);
  assert.ok(pids.length >= 1 && pids.length <= 4);
});
