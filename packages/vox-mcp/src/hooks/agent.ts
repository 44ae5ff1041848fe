/**
 * What a coding agent's adapter is: its hook payloads in, vox's event out
 * (event.ts), its settings written and removed, and what its hooks cannot do.
 * Claude Code's adapter is claude/claude-agent.ts, the others' are in agents/;
 * the one table of them is cli/agent-table.ts, which `vox hook --agent`,
 * `vox hooks --agent`, their help and the docs test read.
 *
 * The adapter's module is loaded by every `vox hook`: it maps payloads only,
 * and loads its settings code (`settings()`) when `vox hooks` asks for it.
 */
import type { HookPayload, VoxEvent } from './event.js';

export interface AgentAdapter {
  /** What `--agent` takes, e.g. `codex`. */
  name: string;
  /** Its name in words, e.g. `Codex CLI`: the heading of its docs section. */
  title: string;
  /** What `vox hooks install --agent` writes, for the help, e.g. `hooks.json and [mcp_servers.vox] in config.toml in $CODEX_HOME (default ~/.codex)`. */
  writes: string;
  /** The agent's event (its hook command's argument) and payload as vox's event. Never throws. */
  toEvent(event: string, payload: HookPayload): VoxEvent;
  /**
   * Its hook can answer a prompt with what it prints (approveByVoice: a voice
   * decision as the hook's output). False: the prompt is announced, never
   * answered.
   */
  answersByVoice: boolean;
  /** Called by `vox hook` with every event it reads (Claude Code notes the session's id for its `vox mcp`). Never throws. */
  seen?(env: NodeJS.ProcessEnv, payload: HookPayload): void;
  /** The `vox hooks` options besides --portable and --json that it reads (the others are refused). */
  options: readonly SettingsOption[];
  /** Its settings, loaded by `vox hooks` alone. */
  settings(): Promise<AgentSettings>;
}

export type SettingsOption = 'scope' | 'type' | 'server';

export interface SettingsCall {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** `vox …` from PATH instead of absolute paths. */
  portable: boolean;
  /** Claude Code: which settings file (`--user`, `--project`, `--local`). */
  scope?: 'user' | 'project' | 'local';
  /** Claude Code: `--type mcp_tool|command`. */
  type?: 'mcp_tool' | 'command';
  /** Claude Code: `--server NAME`. */
  server?: string;
}

/** What `vox hooks` prints: `json` with --json, else `text`; `failed` exits with an error. */
export interface SettingsReport {
  json: unknown;
  text: string;
  failed?: boolean;
}

export interface AgentSettings {
  install(call: SettingsCall): Promise<SettingsReport>;
  uninstall(call: SettingsCall): Promise<SettingsReport>;
  /** Undefined: `vox hooks status --agent` is refused for it. */
  status?(call: SettingsCall): Promise<SettingsReport>;
}
