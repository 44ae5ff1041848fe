/**
 * The source of vox's opencode plugin (`<config>/plugin/vox.js`), written by
 * `vox hooks install --agent opencode`. It runs inside opencode and keeps, per
 * session, the text of the last assistant message (from message.updated and
 * message.part.updated); at session.idle and permission.asked it starts
 * `vox hook --agent opencode <event>` with a payload in Claude Code's terms
 * on stdin, and waits for it (at most 10 s). Its state is bounded: one text
 * per session, and at most MAX_IDS assistant message ids.
 *
 * The gate (hooks/shell-gate.ts, here in the plugin's own process): both
 * events say nothing only where the project's config says `notify: off`, so
 * the plugin reads the nearest `.vox/config.md` above its directory (the
 * payload's cwd, where vox looks too) by the shell gate's rules, and then
 * starts no process. Anything it does not follow starts vox, which decides.
 */
import { voxArgv, type AgentCommandOptions } from './agent-command.js';

/** The plugin file's first line, by which vox knows the file is its own. */
export const PLUGIN_HEADER =
  '// vox: written by "vox hooks install --agent opencode"; "vox hooks uninstall --agent opencode" removes it.';

/** The plugin's gate: true when the nearest config surely says `notify: off` (the shell gate's rules, in JS). */
const OFF = String.raw`function off(directory) {
  let dir = resolve(directory);
  let text;
  for (;;) {
    const file = join(dir, '.vox', 'config.md');
    let found = false;
    try {
      found = statSync(file).isFile();
    } catch {}
    if (found) {
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return false;
      }
      break;
    }
    const up = dirname(dir);
    if (up === dir) return false;
    dir = up;
  }
  const lines = text.split('\n');
  if (!/^---\r?$/.test(lines[0])) return false;
  let notify;
  for (const l of lines.slice(1)) {
    if (/^---\s*$/.test(l)) {
      if (notify === undefined) return false;
      const w = notify.split(/[ \t]+/);
      return (w[2] === undefined || w[2].startsWith('#')) && /^(off|"off"|'off')[\x00-\x1f\x7f]?$/.test(w[1]);
    }
    if (l.startsWith('---')) return false;
    if (l === '' || l.startsWith('#')) continue;
    if (/^\s/.test(l)) {
      if (/\S/.test(l)) return false;
      continue;
    }
    if (l.includes('\\')) return false;
    if (/^notify:[ \t]/.test(l)) {
      if (notify !== undefined) return false;
      notify = l;
    } else if (l.includes('notify')) return false;
  }
  return false;
}`;

export function opencodePlugin(opts: AgentCommandOptions): string {
  const argv = voxArgv(opts);
  return `${PLUGIN_HEADER}
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const VOX = ${JSON.stringify(argv)};
const MAX_IDS = 1000;
const assistant = new Set();
const last = new Map();

// vox says nothing for either event where the project's config says notify: off: then no process starts.
${OFF}

function hook(event, payload) {
  if (off(payload.cwd)) return Promise.resolve();
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(VOX[0], [...VOX.slice(1), 'hook', '--agent', 'opencode', event], { stdio: ['pipe', 'ignore', 'ignore'] });
    } catch {
      return resolve();
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.on('error', () => { clearTimeout(timer); resolve(); });
    child.on('close', () => { clearTimeout(timer); resolve(); });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const VoxPlugin = async ({ directory }) => ({
  event: async ({ event }) => {
    const p = event.properties ?? {};
    if (event.type === 'message.updated' && p.info?.role === 'assistant') {
      if (assistant.size >= MAX_IDS) assistant.clear();
      assistant.add(p.info.id);
    } else if (event.type === 'message.part.updated' && p.part?.type === 'text' && assistant.has(p.part.messageID) && p.part.text) {
      last.set(p.part.sessionID, String(p.part.text).slice(0, 100000));
    } else if (event.type === 'session.idle') {
      const text = last.get(p.sessionID) ?? '';
      last.delete(p.sessionID);
      await hook('session.idle', { session_id: p.sessionID, cwd: directory, last_assistant_message: text });
    } else if (event.type === 'permission.asked') {
      await hook('permission.asked', { session_id: p.sessionID, cwd: directory, tool_name: p.permission });
    }
  },
});
`;
}
