/**
 * Claude Code's adapter (hooks/agent.ts): vox's event model is Claude Code's
 * own, so its payloads pass through; its hooks can answer a prompt with what
 * they print (approveByVoice); and `vox hook` notes the session's id for its
 * `vox mcp` (current-session.ts). Its settings: claude-settings.ts.
 */
import type { AgentAdapter } from '../hooks/agent.js';
import { noteSession } from './current-session.js';

export const claude: AgentAdapter = {
  name: 'claude',
  title: 'Claude Code',
  writes: 'hooks in ~/.claude/settings.json (or --project, --local)',
  toEvent: (event, payload) => ({ event, payload }),
  answersByVoice: true,
  // For this Claude Code's vox mcp, which sees no hook of a command-only set-up: after /clear, this is the session's id.
  seen(env, payload) {
    if (typeof payload.session_id === 'string') noteSession(env, payload.session_id);
  },
  options: ['scope', 'type', 'server'],
  settings: async () => (await import('./claude-settings.js')).claudeSettings,
};
