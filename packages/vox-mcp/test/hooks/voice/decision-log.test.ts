/**
 * The decision log (hooks/voice/decision-log.ts) and what may be planted where
 * it goes: each shape is refused at once, with nothing written anywhere, and
 * only a regular file of the user's in a real logs directory takes a line. A
 * decision is returned only when its line is written (voice-turn.ts). A FIFO
 * without a reader (a blocking open would wait for good) is held by the e2e
 * test/voice/voice-question-log.e2e.test.ts, through a process it can kill.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { logDecision } from '../../../src/hooks/voice/decision-log.js';

const base = mkdtempSync(join(tmpdir(), 'vox-decision-log-'));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

/** A fresh VOX_HOME with its logs directory, and the log's path. */
function home(): { env: NodeJS.ProcessEnv; logs: string; file: string } {
  const dir = join(base, `home${n++}`);
  mkdirSync(join(dir, 'logs'), { recursive: true, mode: 0o700 });
  return { env: { VOX_HOME: dir }, logs: join(dir, 'logs'), file: join(dir, 'logs', 'voice-decisions.jsonl') };
}
const entry = { session: 'api#5e55a0', requestId: 'toolu_1', answer: 'allow', behavior: 'allow' };

test('a regular file takes one JSON line per outcome, mode 0600', () => {
  const { env, file } = home();
  assert.equal(logDecision(env, entry), file);
  logDecision(env, { ...entry, answer: 'deny' });
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    lines.map((l) => l.answer),
    ['allow', 'deny'],
  );
  assert.equal(statSync(file).mode & 0o777, 0o600);
});

test('a FIFO (with a reader, so a blocking write would succeed) is refused', () => {
  const { env, file } = home();
  execFileSync('mkfifo', ['-m', '600', file]);
  const reader = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    assert.throws(() => logDecision(env, entry), /voice-decisions\.jsonl is a FIFO/);
  } finally {
    closeSync(reader);
  }
});

test('a symbolic link to /dev/null is refused, not written through', () => {
  const { env, file } = home();
  symlinkSync('/dev/null', file);
  assert.throws(() => logDecision(env, entry), /is a symbolic link/);
});

test('a dangling symbolic link pointing outside VOX_HOME is refused, and creates nothing', () => {
  const { env, file } = home();
  const outside = join(base, `outside-${n}.jsonl`);
  symlinkSync(outside, file);
  assert.throws(() => logDecision(env, entry), /is a symbolic link/);
  assert.equal(existsSync(outside), false, 'no file created outside VOX_HOME');
});

test('a directory in the log’s place is refused', () => {
  const { env, file } = home();
  mkdirSync(file);
  assert.throws(() => logDecision(env, entry), /voice-decisions\.jsonl is a directory/);
});

test('a hard link to another file of the user’s is refused, and that file left as it was', () => {
  const { env, file } = home();
  const other = join(base, `rc-${n}`);
  writeFileSync(other, 'export PATH=...\n');
  linkSync(other, file);
  assert.throws(() => logDecision(env, entry), /has another name too/);
  assert.equal(readFileSync(other, 'utf8'), 'export PATH=...\n');
});

test('a logs directory that is a symbolic link is refused, and nothing is written where it points', () => {
  const { env, logs } = home();
  const elsewhere = join(base, `elsewhere-${n}`);
  mkdirSync(elsewhere);
  rmSync(logs, { recursive: true });
  symlinkSync(elsewhere, logs);
  assert.throws(() => logDecision(env, entry), /logs is a symbolic link, not a directory/);
  assert.equal(existsSync(join(elsewhere, 'voice-decisions.jsonl')), false);
});

test('the rotation past 1 MB does not follow a link: a link in the log’s place is refused, its target untouched', () => {
  const { env, file } = home();
  const big = join(base, `big-${n}.jsonl`);
  writeFileSync(big, 'x'.repeat(1024 * 1024 + 1));
  symlinkSync(big, file);
  assert.throws(() => logDecision(env, entry), /is a symbolic link/);
  assert.equal(lstatSync(file).isSymbolicLink(), true, 'the link was not renamed to .1');
  assert.equal(existsSync(`${file}.1`), false);
  assert.equal(statSync(big).size, 1024 * 1024 + 1);
});

test('past 1 MB a regular log is rotated to .1 and a new one started', () => {
  const { env, file } = home();
  writeFileSync(file, 'x'.repeat(1024 * 1024 + 1), { mode: 0o600 });
  logDecision(env, entry);
  assert.equal(statSync(`${file}.1`).size, 1024 * 1024 + 1);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).answer, 'allow');
});
