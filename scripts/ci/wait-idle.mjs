#!/usr/bin/env node
// wait-idle.mjs [--timeout-ms 60000] -- CMD...: `vox say` without --wait
// returns once voxd has queued the text. This polls CMD (a `vox status --json`)
// until voxd is idle with a finished speech in its history, then prints that
// entry and exits 0 if it was played, 1 if not (or on timeout). A bounded wait
// for a condition, never a fixed sleep.
import { spawnSync } from 'node:child_process';

const argv = process.argv.slice(2);
let timeoutMs = 60_000;
if (argv[0] === '--timeout-ms') {
  timeoutMs = Number(argv[1]);
  argv.splice(0, 2);
}
if (argv[0] === '--') argv.shift();
if (argv.length === 0) {
  console.error('usage: wait-idle.mjs [--timeout-ms N] -- CMD...');
  process.exit(2);
}
const deadline = Date.now() + timeoutMs;
const pending = new Set(['queued', 'playing']);
let last = '';
while (Date.now() < deadline) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 15_000 });
  last = `exit ${r.status}: ${(r.stdout || '').slice(0, 400)}${(r.stderr || '').slice(0, 400)}`;
  let s;
  try {
    s = r.status === 0 ? JSON.parse(r.stdout) : undefined;
  } catch {}
  const speech = s?.history?.filter((h) => h.kind === 'speech') ?? [];
  const done = speech.length > 0 && speech.every((h) => !pending.has(h.outcome));
  if (s && done && s.playing === null && s.queue.length === 0) {
    const h = speech[speech.length - 1];
    console.log(
      `wait-idle: voxd is idle; last speech ${JSON.stringify({ text: h.text, outcome: h.outcome, reason: h.reason, engine: h.engine })}; sink ${JSON.stringify(s.sink)}`,
    );
    process.exit(h.outcome === 'played' ? 0 : 1);
  }
  await new Promise((res) => setTimeout(res, 250));
}
console.error(`wait-idle: voxd did not finish speaking within ${timeoutMs} ms; last status: ${last}`);
process.exit(1);
