#!/usr/bin/env node
// What the model receives from each `vox mcp` tool, in characters. Claude Code
// gives the model JSON.stringify(structuredContent) when a result has one, and
// the text blocks otherwise; both are printed, one JSON line per call.
// Not a timing: the figures are exact and the same on every machine with the
// same voices (the espeak-ng engine's list).
//
//   node bench/mcp-result-size.mjs [path/to/cli.js]   (default: the built vox bin)
//
// Starts a voxd of its own (temp VOX_HOME, port 0, WAV files to a temp dir).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, report, VOX, VOXD } from './lib.mjs';

const cli = process.argv[2] ?? VOX;
const root = mkdtempSync(join(tmpdir(), 'vox-result-size-'));
const home = join(root, 'home');
const sink = join(root, 'sink');
mkdirSync(sink, { recursive: true });
const env = cleanEnv({
  HOME: root,
  VOX_HOME: home,
  VOXD_PORT: '0',
  VOXD_AUDIO: `file:${sink}?realtime=0`,
  CLAUDE_CODE_SESSION_ID: '8b3d3e2a-0000-4000-8000-000000000000',
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function project(name, config) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  if (config) {
    mkdirSync(join(dir, '.vox'), { recursive: true });
    writeFileSync(join(dir, '.vox', 'config.md'), config);
  }
  return dir;
}

/** A raw JSON-RPC session with `vox mcp` (no SDK: the bench measures the bytes). */
function session(cwd) {
  const child = spawn(process.execPath, [cli, 'mcp'], { cwd, env, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let buf = '';
  let next = 1;
  child.stdout.setEncoding('utf8').on('data', (d) => {
    buf += d;
    for (let i; (i = buf.indexOf('\n')) !== -1;) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      waiting.get(m.id)?.(m);
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return { request, close: () => child.stdin.end() };
}

const voxd = spawn(process.execPath, [VOXD, '--port', '0'], { env, stdio: 'ignore' });
try {
  for (let i = 0; i < 300 && !existsSync(join(home, 'voxd.json')); i++) await sleep(50);
  const plain = session(project('shop'));
  const muted = session(project('quiet', '---\nspeak: false\n---\n'));
  const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'size', version: '1' } };
  await plain.request('initialize', init);
  await muted.request('initialize', init);
  const calls = [
    ['speak', plain, 'speak', { text: 'The build finished without errors.' }],
    ['speak (duplicate)', plain, 'speak', { text: 'The build finished without errors.' }],
    ['speak (muted project)', muted, 'speak', { text: 'Tests pass.' }],
    ['stop', plain, 'stop', {}],
    ['voices', plain, 'voices', {}],
    ['voices (language en)', plain, 'voices', { language: 'en' }],
    ['status', plain, 'status', {}],
    ['configure', plain, 'configure', { rate: 190 }],
    ['record', plain, 'record', { text: 'Saved, not played.', path: join(root, 'out.wav') }],
    ['speak (invalid input)', plain, 'speak', { text: '' }],
  ];
  for (const [label, s, name, args] of calls) {
    const { result, error } = await s.request('tools/call', { name, arguments: args });
    if (error) {
      report({ bench: 'mcp-result-size', call: label, error: error.message });
      continue;
    }
    const text = result.content
      .filter((c) => c.type === 'text')
      .map((c) => c.text)
      .join('\n');
    const model =
      result.structuredContent !== undefined ? JSON.stringify(result.structuredContent).length : text.length;
    if (process.env.SHOW) process.stderr.write(`${label}: ${JSON.stringify(result.structuredContent ?? text)}\n`);
    report({
      bench: 'mcp-result-size',
      call: label,
      modelChars: model,
      textChars: text.length,
      structured: result.structuredContent !== undefined,
      isError: result.isError === true,
    });
    if (name === 'speak') await sleep(200);
  }
  plain.close();
  muted.close();
} finally {
  voxd.kill('SIGTERM');
  await sleep(300);
  rmSync(root, { recursive: true, force: true });
}
