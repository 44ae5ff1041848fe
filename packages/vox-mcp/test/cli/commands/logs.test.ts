/**
 * `vox logs`: formatting, the last N lines across rotated files, following
 * across rotation, and the real binary with -n, --json and -f.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import { follow, formatLine, lastLines, rotatedFiles, run, tailLog } from '../../../src/cli/commands/logs.js';
import { VOX } from '../../../../../test/helpers/daemon.js';

const tmp = mkdtempSync(join(tmpdir(), 'vox-logs-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function home(): { home: string; logs: string } {
  const h = join(tmp, `home-${n++}`);
  const logs = join(h, 'logs');
  mkdirSync(logs, { recursive: true });
  return { home: h, logs };
}

const T0 = Date.UTC(2026, 10, 30, 12, 0, 1, 234);
function rec(i: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ level: 30, time: T0 + i, pid: 42, msg: `line ${i}`, ...extra });
}
function lines(from: number, to: number): string {
  let s = '';
  for (let i = from; i <= to; i++) s += `${rec(i)}\n`;
  return s;
}

async function runLogs(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  const code = await run({ argv, env, cwd: tmp, stdin: new PassThrough(), stdout, stderr });
  return { code, out, err };
}

describe('formatLine', () => {
  test('time, level, message, then the key fields, then the rest', () => {
    process.env.TZ = 'UTC';
    const line = JSON.stringify({
      level: 30,
      time: T0,
      pid: 7,
      reqId: 'req-1',
      engine: 'espeak',
      outcome: 'played',
      id: '88e176c0',
      session: 'shop#3c07f0',
      msg: 'utterance settled',
      port: 8421,
    });
    assert.equal(
      formatLine(line),
      '2026-11-30 12:00:01.234 INFO  utterance settled id=88e176c0 session=shop#3c07f0 outcome=played engine=espeak port=8421',
    );
  });

  test('errors show their message, values with spaces are quoted, levels are named', () => {
    process.env.TZ = 'UTC';
    const line = JSON.stringify({
      level: 50,
      time: T0,
      msg: 'utterance failed',
      id: 'a1',
      err: { type: 'Error', message: 'aplay exited with code 1', stack: 'Error: ...\n at x' },
    });
    assert.equal(
      formatLine(line),
      '2026-11-30 12:00:01.234 ERROR utterance failed id=a1 err="aplay exited with code 1"',
    );
    assert.match(
      formatLine(JSON.stringify({ level: 40, time: T0, msg: 'w', reason: 'not started within maxAgeMs' })),
      /WARN  w reason="not started within maxAgeMs"$/,
    );
    assert.match(
      formatLine(JSON.stringify({ level: 30, time: T0, msg: 'x', sink: { name: 'speaker', ok: false } })),
      /sink=\{"name":"speaker","ok":false\}$/,
    );
  });

  test('redacted values stay redacted; nothing is added', () => {
    const line = JSON.stringify({ level: 30, time: T0, msg: 'req', req: { headers: { authorization: '[redacted]' } } });
    assert.match(formatLine(line), /\[redacted\]/);
  });

  test('lines that are not pino JSON pass through', () => {
    assert.equal(formatLine('plain text from somewhere'), 'plain text from somewhere');
    assert.equal(formatLine('[1,2]'), '[1,2]');
    assert.equal(formatLine(''), '');
  });
});

describe('tail', () => {
  test('the last N lines of a file, also across read blocks', () => {
    const { logs } = home();
    const big = 'x'.repeat(1000);
    let text = '';
    for (let i = 0; i < 300; i++) text += `${i} ${big}\n`;
    writeFileSync(join(logs, 'voxd.log'), text);
    const got = lastLines(join(logs, 'voxd.log'), 3);
    assert.deepEqual(
      got.map((l) => l.split(' ')[0]),
      ['297', '298', '299'],
    );
    assert.equal(lastLines(join(logs, 'voxd.log'), 0).length, 0);
    assert.equal(lastLines(join(logs, 'missing.log'), 5).length, 0);
  });

  test('rotated files are sorted by time then index, and fill up a short current file', () => {
    const { logs } = home();
    writeFileSync(join(logs, '20261130-1200-02-voxd.log'), lines(5, 7));
    writeFileSync(join(logs, '20261130-1200-01-voxd.log'), lines(1, 4));
    writeFileSync(join(logs, '20261129-2359-10-voxd.log'), lines(0, 0));
    writeFileSync(join(logs, 'voxd.log'), lines(8, 9));
    writeFileSync(join(logs, 'voxd.stderr.log'), 'not a rotated file\n');
    assert.deepEqual(
      rotatedFiles(logs).map((f) => f.slice(logs.length + 1)),
      ['20261129-2359-10-voxd.log', '20261130-1200-01-voxd.log', '20261130-1200-02-voxd.log'],
    );
    const got = tailLog(logs, 6).map((l) => JSON.parse(l).msg);
    assert.deepEqual(got, ['line 4', 'line 5', 'line 6', 'line 7', 'line 8', 'line 9']);
    assert.equal(tailLog(logs, 100).length, 10);
  });
});

describe('vox logs (in process)', () => {
  test('-n N prints N human lines; --json the raw lines; default 50', async () => {
    const { home: h, logs } = home();
    writeFileSync(join(logs, 'voxd.log'), lines(1, 80));
    const env = { VOX_HOME: h, TZ: 'UTC' };
    const human = await runLogs(['-n', '3'], env);
    assert.equal(human.code, 0);
    assert.deepEqual(
      human.out
        .trim()
        .split('\n')
        .map((l) => l.replace(/^\S+ \S+ /, '')),
      ['INFO  line 78', 'INFO  line 79', 'INFO  line 80'],
    );
    const json = await runLogs(['-n', '2', '--json'], env);
    assert.equal(json.out, `${rec(79)}\n${rec(80)}\n`);
    const all = await runLogs([], env);
    assert.equal(all.out.trim().split('\n').length, 50);
  });

  test('a spoken text holding terminal escapes is printed escaped, as text and as JSON', async () => {
    const { home: h, logs } = home();
    // What pino writes for a text with ESC (JSON escapes it), 8-bit CSI and a bidi override (JSON leaves those raw).
    const evil = rec(1, { text: 'x\u001b]0;owned\u0007\u009b2J\u202ey' });
    writeFileSync(join(logs, 'voxd.log'), `${evil}\nnot json \u009b2J\n`);
    const env = { VOX_HOME: h, TZ: 'UTC' };
    const unsafe = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
    const human = await runLogs([], env);
    assert.equal(unsafe.test(human.out), false, human.out);
    assert.match(human.out, /\\x1b\]0;owned\\x07\\x9b2J\\u202ey/);
    assert.match(human.out, /not json \\x9b2J/);
    const json = await runLogs(['--json'], env);
    assert.equal(unsafe.test(json.out), false, json.out);
    assert.deepEqual(JSON.parse(json.out.split('\n')[0]!), JSON.parse(evil), 'the same JSON');
  });

  test('no log yet: a note on stderr, exit 0; bad -n: exit 2', async () => {
    const { home: h } = home();
    const none = await runLogs([], { VOX_HOME: h });
    assert.equal(none.code, 0);
    assert.equal(none.out, '');
    assert.match(none.err, /no log at .*voxd\.log yet/);
    for (const bad of ['-1', 'ten', '1.5']) {
      const r = await runLogs(['-n', bad], { VOX_HOME: h });
      assert.equal(r.code, 2, bad);
    }
  });
});

describe('follow', () => {
  const until = async (cond: () => boolean, what: string) => {
    const deadline = Date.now() + 10_000;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  test('new lines, then a rotation (rename + new file): every line once, in order', async () => {
    const { logs } = home();
    const path = join(logs, 'voxd.log');
    writeFileSync(path, lines(1, 2));
    const got: string[] = [];
    const ac = new AbortController();
    const done = follow(path, (l) => got.push(JSON.parse(l).msg), { intervalMs: 10, signal: ac.signal });
    appendFileSync(path, lines(3, 4));
    // Half a line: printed only once it is complete.
    appendFileSync(path, rec(5).slice(0, 10));
    await until(() => got.length === 2, 'lines 3 and 4');
    appendFileSync(path, `${rec(5).slice(10)}\n`);
    await until(() => got.length === 3, 'line 5');
    // rotating-file-stream: a last line, then the rename, then a new file.
    appendFileSync(path, lines(6, 6));
    renameSync(path, join(logs, '20261130-1200-01-voxd.log'));
    writeFileSync(path, lines(7, 8));
    await until(() => got.length === 6, 'lines across the rotation');
    appendFileSync(path, lines(9, 9));
    await until(() => got.length === 7, 'line 9');
    ac.abort();
    await done;
    assert.deepEqual(got, ['line 3', 'line 4', 'line 5', 'line 6', 'line 7', 'line 8', 'line 9']);
  });

  test('a file that appears later, and one truncated in place', async () => {
    const { logs } = home();
    const path = join(logs, 'voxd.log');
    const got: string[] = [];
    const ac = new AbortController();
    const done = follow(path, (l) => got.push(JSON.parse(l).msg), { intervalMs: 10, signal: ac.signal, from: 0 });
    writeFileSync(path, lines(1, 2));
    await until(() => got.length === 2, 'the new file');
    writeFileSync(path, lines(3, 3));
    await until(() => got.length === 3, 'the truncated file');
    ac.abort();
    await done;
    assert.deepEqual(got, ['line 1', 'line 2', 'line 3']);
  });
});

describe('vox logs -f (the binary)', () => {
  test('prints the tail, then follows across a rotation until killed', async () => {
    const { home: h, logs } = home();
    const path = join(logs, 'voxd.log');
    writeFileSync(path, lines(1, 5));
    const child = spawn(process.execPath, [VOX, 'logs', '-f', '-n', '2', '--json'], {
      env: { ...process.env, VOX_HOME: h },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise((r) => child.once('exit', r));
    const count = () => out.split('\n').filter(Boolean).length;
    const deadline = Date.now() + 15_000;
    const wait = async (k: number) => {
      while (count() < k) {
        if (Date.now() > deadline) throw new Error(`got only: ${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      await wait(2);
      appendFileSync(path, lines(6, 6));
      await wait(3);
      renameSync(path, join(logs, '20261130-1200-01-voxd.log'));
      writeFileSync(path, lines(7, 7));
      await wait(4);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    assert.deepEqual(
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).msg),
      ['line 4', 'line 5', 'line 6', 'line 7'],
    );
  });
});
