/**
 * `vox hook` and whatever its stdin holds: the real `vox` binary, stdin a pipe
 * written as the hook runs (streamed, sometimes never closed), a real voxd.
 * Each hostile input ends in one clear line on stderr, exit 0 (as for any bad
 * payload), nothing sent to voxd, and a peak RSS of at most 100 MB (read by
 * a preloaded helper at the hook's exit). The hook must exit for the test to
 * see its exit code: a hook still reading after 20 s is killed, and fails.
 * bench/hook-stdin.mjs gives the time and peak RSS of each input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Writable } from 'node:stream';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURES, startDaemon, tempDir, vox, writeConfig } from '../helpers/daemon.js';

/** Kills a hook that has not exited by then: a test waits for the exit, never for a duration. */
const EXIT_LIMIT_MS = 20_000;
/** The most memory a hook may take, whatever its stdin holds. */
const MAX_RSS_MB = 100;
const PROBE = fileURLToPath(new URL('../helpers/max-rss.cjs', import.meta.url));

const d = await startDaemon({ audio: 'null' });
test.after(() => d.stop());
const env = { ...d.env, VOX_NO_AUTOSTART: '1' };
const project = join(tempDir(), 'api');
writeConfig(project, 'notify: normal');
/** A permission prompt of the project: a payload voxd is sent when the hook takes it. */
const prompt = {
  ...JSON.parse(readFileSync(join(FIXTURES, 'hooks', 'notification-permission.json'), 'utf8')),
  cwd: project,
};

/** What voxd has received from clients, in all. */
async function received(): Promise<number> {
  const c = (await d.api('GET', '/v1/status')).body.counters;
  return c.accepted + c.deduped + c.dropped;
}

/** Writes `head`, then `chunk` `times` times with backpressure until the hook stops reading; closes stdin unless `open`. */
function feeder(head: string | Buffer, chunk = '', times = 0, open = false): (stdin: Writable) => void {
  return (stdin) => {
    void (async () => {
      const write = (data: string | Buffer) =>
        stdin.write(data) ? undefined : new Promise<void>((r) => stdin.once('drain', () => r()));
      await write(head);
      for (let i = 0; i < times && stdin.writable; i++) await write(chunk);
      if (!open && stdin.writable) stdin.end();
    })().catch(() => undefined);
  };
}

/** Runs `vox hook Notification` on this stdin: asserts the exit, nothing sent to voxd, the peak RSS, one line naming `why`. */
async function refused(feed: (stdin: Writable) => void, why: RegExp): Promise<void> {
  const before = await received();
  const rssFile = join(tempDir(), 'max-rss');
  const probed = { ...env, NODE_OPTIONS: `--require ${PROBE}`, VOX_TEST_MAX_RSS_FILE: rssFile };
  const r = await vox(['hook', 'Notification'], { env: probed, feed, timeoutMs: EXIT_LIMIT_MS });
  assert.equal(r.code, 0, `the hook exited (${String(r.code)}) within ${EXIT_LIMIT_MS} ms: ${r.stderr.slice(0, 300)}`);
  // The hook awaits its request before it exits: anything it sent is counted by now.
  assert.equal(await received(), before, `nothing sent to voxd (the hook said: ${r.stderr.slice(0, 300)})`);
  const rssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  rmSync(rssFile);
  assert.ok(rssMb <= MAX_RSS_MB, `peak RSS ${rssMb.toFixed(1)} MB, over ${MAX_RSS_MB} MB`);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, why);
  assert.match(r.stderr, /^vox hook: [^\n]*; nothing said\n$/, 'one line');
  // No control character of the input reaches the terminal.
  assert.doesNotMatch(r.stderr.slice(0, -1), /[\u0000-\u001f\u007f-\u009f]/);
}

test('a payload whose object closes is taken at once, with stdin never closed', async () => {
  const before = await received();
  const r = await vox(['hook', 'Notification'], {
    env,
    feed: feeder(JSON.stringify(prompt), '', 0, true),
    timeoutMs: EXIT_LIMIT_MS,
  });
  assert.equal(r.code, 0);
  assert.equal(r.stderr, '');
  assert.equal(await received(), before + 1, 'the prompt reached voxd');
});

test('3,000,000 "[": refused from its first byte', async () => {
  await refused(feeder('['.repeat(3_000_000)), /refused \(it does not start with "\{"\)/);
});

test('500,000 {"a": : refused past the depth bound', async () => {
  await refused(feeder('{"a":', '{"a":', 499_999), /refused \(it nests deeper than 64 levels\)/);
});

test('a valid payload nested 400,000 deep (800 KB): refused past the depth bound, never sent', async () => {
  const deep = `${'['.repeat(400_000)}${']'.repeat(400_000)}`;
  await refused(
    feeder(`${JSON.stringify(prompt).slice(0, -1)},"deep":${deep}}`),
    /refused \(it nests deeper than 64 levels\)/,
  );
});

test('100 MB on stdin: refused at 4 MiB', async () => {
  await refused(feeder('{"message":"', 'x'.repeat(1024 * 1024), 100), /refused \(it is over 4 MiB\)/);
});

test('an endless writer that never closes stdin: refused at 4 MiB', async () => {
  await refused(feeder('{"message":"', 'x'.repeat(64 * 1024), Number.POSITIVE_INFINITY, true), /over 4 MiB/);
});

test('a payload of millions of empty objects (4 MiB): refused past the count of values', async () => {
  await refused(feeder(`{"a":[${'{},'.repeat(1_300_000)}{}]}`), /refused \(it holds more than 100000 values\)/);
});

test('binary with control characters: refused, and none of them printed', async () => {
  const bytes = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
  await refused(feeder(bytes), /refused \(it does not start with "\{"\)/);
});

test('half an object, stdin never closed: cut off after 1 s of silence', async () => {
  await refused(feeder('{"hook_event_name":"Notification",', '', 0, true), /not complete, and nothing more came/);
});
