#!/usr/bin/env node
// claude-check.mjs: with vox's plugin installed into the real Claude Code
// (`claude` on PATH, HOME its home), check what a user would see:
//   1. `claude mcp list` shows the plugin's server, plugin:vox:vox, connected;
//   2. a scripted `claude -p` session, against a loopback stand-in for the
//      Messages API (test/helpers/messages-api.ts, loaded with Node's own type
//      stripping: no tsx needed), calls the speak tool and gets a result that
//      is not an error, and Claude Code's debug log shows vox mcp ending on
//      the first signal: no SIGTERM, no SIGKILL of vox.
// Offline: no telemetry, no updater; the API is the stand-in. Each claude run
// has 90 s. Exit 0 when all hold, else 1 with the reason.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SERVER = 'plugin:vox:vox';
const SPEAK = 'mcp__plugin_vox_vox__speak';

/** The debug log's lines that show vox's server being sent SIGTERM or SIGKILL (empty: it ended on the first signal). */
export function forcedEnds(log) {
  return log
    .split('\n')
    .filter((l) => l.includes(`MCP server "${SERVER}"`) && /sending SIG(TERM|KILL)|SIGKILL/i.test(l));
}

/** Whether `claude mcp list` output shows the plugin's server connected. */
export function connected(list) {
  return list
    .split('\n')
    .some((l) => l.startsWith(`${SERVER}:`) && /✔ Connected|\bConnected\b/.test(l) && !/Failed|✗/.test(l));
}

function run(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('claude', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr });
    });
  });
}

function fail(why) {
  console.error(`claude-check: ${why}`);
  process.exit(1);
}

async function main() {
  const { startMessagesApi, toolResults, resultText } = await import('../../test/helpers/messages-api.ts');
  const model = (req) => {
    if (toolResults(req).has('toolu_ci_speak')) return { text: 'Said it.' };
    if (!req.tools?.length) return { text: 'ok' };
    return {
      tools: [{ id: 'toolu_ci_speak', name: SPEAK, input: { text: 'Hello from Claude Code on a fresh machine.' } }],
    };
  };
  const api = await startMessagesApi(model);
  const dir = mkdtempSync(join(tmpdir(), 'vox-claude-check-'));
  try {
    const env = {
      ...process.env,
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    };
    const list = await run(['mcp', 'list'], env);
    console.log(list.stdout.trim());
    if (list.code !== 0) fail(`claude mcp list exited ${list.code}: ${list.stderr.trim()}`);
    if (!connected(list.stdout)) fail(`claude mcp list does not show ${SERVER} connected`);

    const debug = join(dir, 'claude-debug.log');
    const p = await run(['-p', 'Say hello through vox.', '--allowedTools', SPEAK, '--debug-file', debug], env);
    console.log(`claude -p: exit ${p.code}: ${p.stdout.trim()}`);
    if (p.code !== 0) fail(`claude -p exited ${p.code}: ${p.stderr.trim()}`);
    const result = api.requests.map((r) => r.body && toolResults(r.body).get('toolu_ci_speak')).find(Boolean);
    if (!result) fail('the model never got the result of speak');
    console.log(`speak's result: ${resultText(result.content)}`);
    if (result.is_error) fail(`speak failed: ${resultText(result.content)}`);
    const log = readFileSync(debug, 'utf8');
    if (!log.includes(`MCP server "${SERVER}": Successfully connected`))
      fail(`the debug log does not show ${SERVER} connecting`);
    const forced = forcedEnds(log);
    if (forced.length) fail(`Claude Code had to force vox mcp to end:\n${forced.join('\n')}`);
    const ended = log.split('\n').filter((l) => l.includes(`MCP server "${SERVER}"`) && /SIG|exited/.test(l));
    console.log(`debug log, vox's server at exit:\n${ended.join('\n')}`);
  } finally {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
