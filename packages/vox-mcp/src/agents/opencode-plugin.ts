/**
 * The source of vox's opencode plugin (`<config>/plugin/vox.js`), written by
 * `vox hooks install --agent opencode`. It runs inside opencode and keeps, per
 * session, the text of the last assistant message (from message.updated and
 * message.part.updated); at session.idle and permission.asked it starts
 * `vox hook --agent opencode <event>` with a payload in Claude Code's terms
 * on stdin, and waits for it (at most 10 s). Its state is bounded: one text
 * per session, and at most MAX_IDS assistant message ids.
 */
import { voxArgv, type AgentCommandOptions } from './agent-command.js';

/** The plugin file's first line, by which vox knows the file is its own. */
export const PLUGIN_HEADER =
  '// vox: written by "vox hooks install --agent opencode"; "vox hooks uninstall --agent opencode" removes it.';

export function opencodePlugin(opts: AgentCommandOptions): string {
  const argv = voxArgv(opts);
  return `${PLUGIN_HEADER}
import { spawn } from 'node:child_process';

const VOX = ${JSON.stringify(argv)};
const MAX_IDS = 1000;
const assistant = new Set();
const last = new Map();

function hook(event, payload) {
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
