/**
 * What vox's hook entries are: the events, the two kinds of entry, and how an
 * entry of vox's (from this or an earlier install) is recognised. Putting them
 * into a settings file is hooks-settings.ts.
 *
 * Design notes:
 * - Two kinds of entry. An `mcp_tool` hook (Claude Code 2.1.118 and later)
 *   calls the `hook` tool of the session's own `vox mcp`, which already has
 *   the session's cwd, config and identity: no process is started. A
 *   `command` hook runs `vox hook <Event>`, for older Claude Code, and for the
 *   events where an MCP server is not connected when they fire (SessionStart
 *   fires while servers are still connecting, SessionEnd after they have been
 *   closed: tried with Claude Code 2.1.332).
 * - An mcp_tool entry passes the payload's fields that the policy reads as
 *   `${field}` strings (Claude Code substitutes them; a missing one becomes
 *   "", a boolean "true"/"false"); `event` is written in.
 * - A command runs `node /abs/path/bin/vox.cjs hook <Event>` by default: absolute
 *   paths work without a PATH (Claude Code may run hooks from a GUI launcher)
 *   and cost no `npx` resolution on every hook. `portable` gives `vox hook
 *   <Event>` instead, for files shared between machines (a committed
 *   `.claude/settings.json`); `plugin` gives the plugin's launcher under
 *   `${CLAUDE_PLUGIN_ROOT}`.
 * - One exception: SessionStart from `/clear` runs while the server is
 *   connected, and 2.1.332 does call an mcp_tool hook then (its debug log:
 *   "mcp_tool calling ... with 3 arg(s)"). `/clear` gives the session a new
 *   id while `vox mcp` keeps running, so an mcp_tool group with matcher
 *   `clear` tells the hook tool the new id at once (it says nothing), and the
 *   model's first speech after the clear already has the new label.
 * - SessionStart and SessionEnd say something only in `notify: chatty`,
 *   so their commands start with a gate in the shell itself (QUIET_GATE,
 *   hooks/shell-gate.ts): unless the nearest `.vox/config.md` sets `notify:
 *   chatty` (or `continuous`), the hook exits before node starts. Node costs
 *   ~70-130 ms a hook; the gate a few ms (bench/session-hook.mjs). A config
 *   the gate does not follow only costs that process: node then decides. Claude Code 2.1.332 cannot run
 *   these two as mcp_tool hooks: "mcp_tool hooks are not available for the
 *   'SessionStart' hook event (no MCP client context)", and at SessionEnd
 *   "MCP server ... is not connected" (its debug log, tried for real).
 * - vox's entries are recognised by their shape (a command `vox hook <Event>`
 *   or `.../vox.cjs hook <Event>`; an mcp_tool call of `hook` whose input
 *   passes `${session_id}`), not by a private marker key that Claude Code
 *   might reject. That also finds the entries of an older install, of either
 *   kind, so installing again replaces them.
 * - The file belongs to the user: other keys, other hooks and key order stay as
 */
import { defaultCliPath } from '../hooks/cli-path.js';
import { isObject } from '../hooks/settings-file.js';
import { shellGate } from '../hooks/shell-gate.js';
import { HOOK_TIMEOUT_SECONDS, VOICE_HOOK_TIMEOUT_SECONDS } from '../hooks/timeouts.js';

/** The Claude Code events vox handles. */
export const HOOK_EVENTS = [
  'PermissionRequest',
  'Notification',
  'Stop',
  'StopFailure',
  'SubagentStop',
  'SessionStart',
  'SessionEnd',
  'PreCompact',
  'Elicitation',
] as const;

/**
 * The events of narration (claude/narration.ts): mcp_tool hooks only, never
 * commands (Claude Code waits on every MessageDisplay batch, and a process
 * each would hold the screen), and only where Claude Code has MessageDisplay.
 * Not in HOOK_EVENTS: a setup without them (command hooks, an older Claude
 * Code) is still installed whole. PostToolUse reads what the transcript holds
 * and MessageDisplay missed (claude/transcript-narration.ts): it passes the
 * transcript's path alone, never the tool's input or output, so the call stays small.
 */
export const NARRATION_EVENTS = ['UserPromptSubmit', 'MessageDisplay', 'PostToolUse'] as const;

/** Every event vox may have an entry for. */
export const ALL_HOOK_EVENTS = [...HOOK_EVENTS, ...NARRATION_EVENTS] as const;
export type HookEvent = (typeof ALL_HOOK_EVENTS)[number];

/**
 * The events whose hooks can call the session's MCP server. SessionStart and
 * SessionEnd are not among them: Claude Code 2.1.332 skips an mcp_tool hook
 * when the server is still connecting (startup) or already closed (exit).
 */
export const MCP_TOOL_EVENTS: readonly HookEvent[] = [
  'PermissionRequest',
  'Notification',
  'Stop',
  'StopFailure',
  'SubagentStop',
  'PreCompact',
  'Elicitation',
];

const isNarration = (event: HookEvent): boolean => (NARRATION_EVENTS as readonly string[]).includes(event);

/** The first Claude Code with the MessageDisplay event. */
export const MESSAGE_DISPLAY_SINCE = '2.1.152';

/** The payload fields each event's mcp_tool entry passes (session_id and cwd always). */
const EVENT_FIELDS: Record<HookEvent, readonly string[]> = {
  PermissionRequest: ['tool_name', 'tool_input', 'permission_suggestions', 'tool_use_id'],
  Notification: ['notification_type', 'message'],
  Stop: ['stop_hook_active', 'last_assistant_message', 'transcript_path'],
  StopFailure: ['error'],
  SubagentStop: ['stop_hook_active', 'transcript_path'],
  SessionStart: ['source'],
  SessionEnd: ['reason'],
  PreCompact: ['trigger'],
  Elicitation: ['mcp_server_name', 'message', 'requested_schema', 'mode', 'elicitation_id'],
  UserPromptSubmit: ['transcript_path'],
  MessageDisplay: ['message_id', 'index', 'final', 'delta', 'transcript_path'],
  PostToolUse: ['transcript_path'],
};

/** The first Claude Code that runs `mcp_tool` hooks. */
export const MCP_TOOL_SINCE = '2.1.118';

/** The name of the `vox mcp` server as `claude mcp add vox -- vox mcp` registers it. */
export const DEFAULT_SERVER = 'vox';
/** The plugin's own server, as Claude Code names a plugin's servers: `plugin:<plugin>:<server>`. */
export const PLUGIN_SERVER = 'plugin:vox:vox';
/** The `vox mcp` tool that mcp_tool hooks call (mcp/tools/hook.ts). */
export const HOOK_TOOL = 'hook';

/** Narration's timeout, in seconds: voxd answers a batch in milliseconds, and Claude Code shows nothing of it until then. */
export const NARRATION_HOOK_TIMEOUT_SECONDS = 5;

const timeoutOf = (event: HookEvent) =>
  event === 'PermissionRequest' || event === 'Elicitation'
    ? VOICE_HOOK_TIMEOUT_SECONDS
    : isNarration(event)
      ? NARRATION_HOOK_TIMEOUT_SECONDS
      : HOOK_TIMEOUT_SECONDS;

export type HookType = 'mcp_tool' | 'command';
export const HOOK_TYPES: readonly HookType[] = ['mcp_tool', 'command'];

export interface CommandHook {
  type: 'command';
  command: string;
  timeout?: number;
}

export interface McpToolHook {
  type: 'mcp_tool';
  server: string;
  tool: string;
  input: Record<string, string>;
  timeout?: number;
}

export interface HookGroup {
  matcher?: string;
  hooks: Array<CommandHook | McpToolHook>;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface HookCommandOptions {
  /** `vox hook <Event>`, found on PATH, instead of absolute paths. Default false. */
  portable?: boolean;
  /** The plugin's launcher, `node "${CLAUDE_PLUGIN_ROOT}/bin/vox.cjs" hook <Event>`. Default false. */
  plugin?: boolean;
  /** Default: `process.execPath`. */
  node?: string;
  /** Default: `defaultCliPath()`. */
  cli?: string;
}

export interface HookEntryOptions extends HookCommandOptions {
  /** `mcp_tool` where Claude Code allows it (the default), or `command` everywhere. */
  type?: HookType;
  /** The MCP server that mcp_tool hooks call. Default `vox` (`plugin:vox:vox` with `plugin`). */
  server?: string;
  /** The narration events (NARRATION_EVENTS), with mcp_tool hooks. Default true; false before MESSAGE_DISPLAY_SINCE. */
  narration?: boolean;
}

/** The events that speak only in `notify: chatty`, whose commands are gated by QUIET_GATE. */
export const CONTINUOUS_ONLY_COMMANDS: readonly HookEvent[] = ['SessionStart', 'SessionEnd'];

/**
 * POSIX shell run before node for CONTINUOUS_ONLY_COMMANDS (hooks/shell-gate.ts):
 * exits 0 unless the nearest `.vox/config.md` (from the hook's working
 * directory, the session's) sets `notify: chatty` (or `continuous`), or is
 * written in a way the gate does not follow; then node decides.
 */
export const QUIET_GATE = `${shellGate('chatty')}exec `;

/** The shell command Claude Code runs for an event. */
export function hookCommand(event: HookEvent, opts: HookCommandOptions = {}): string {
  const gate = CONTINUOUS_ONLY_COMMANDS.includes(event) ? QUIET_GATE : '';
  if (opts.plugin) return `${gate}node "\${CLAUDE_PLUGIN_ROOT}/bin/vox.cjs" hook ${event}`;
  if (opts.portable) return `${gate}vox hook ${event}`;
  const node = opts.node ?? process.execPath;
  const cli = opts.cli ?? defaultCliPath();
  return `${gate}${shellQuote(node)} ${shellQuote(cli)} hook ${event}`;
}

/** The mcp_tool hook for an event: the `hook` tool of `server`, with the payload's fields substituted in. */
export function mcpToolHook(event: HookEvent, server: string): McpToolHook {
  const input: Record<string, string> = { event };
  for (const f of ['session_id', 'cwd', ...EVENT_FIELDS[event]]) input[f] = `\${${f}}`;
  return { type: 'mcp_tool', server, tool: HOOK_TOOL, input, timeout: timeoutOf(event) };
}

/** vox's entry for one event: mcp_tool where allowed and asked for, else the command. */
export function voxHook(event: HookEvent, opts: HookEntryOptions = {}): CommandHook | McpToolHook {
  if ((opts.type ?? 'mcp_tool') === 'mcp_tool' && (MCP_TOOL_EVENTS.includes(event) || isNarration(event))) {
    return mcpToolHook(event, opts.server ?? (opts.plugin ? PLUGIN_SERVER : DEFAULT_SERVER));
  }
  return { type: 'command', command: hookCommand(event, opts), timeout: timeoutOf(event) };
}

/** The SessionStart source after which the session's server is connected and its id has changed. */
export const CLEAR_MATCHER = 'clear';

/**
 * vox's settings entries, keyed by event: one group per event, matching
 * everything; with mcp_tool hooks, SessionStart also has a `clear` group
 * that calls the hook tool (the session's new id, see above).
 */
export function voxHookEntries(opts: HookEntryOptions = {}): Partial<Record<HookEvent, HookGroup[]>> {
  const out: Partial<Record<HookEvent, HookGroup[]>> = {};
  const narration = (opts.type ?? 'mcp_tool') === 'mcp_tool' && opts.narration !== false;
  for (const event of ALL_HOOK_EVENTS) {
    if (isNarration(event) && !narration) continue;
    out[event] = [{ matcher: '', hooks: [voxHook(event, opts)] }];
  }
  if ((opts.type ?? 'mcp_tool') === 'mcp_tool') {
    const server = opts.server ?? (opts.plugin ? PLUGIN_SERVER : DEFAULT_SERVER);
    out.SessionStart!.push({ matcher: CLEAR_MATCHER, hooks: [mcpToolHook('SessionStart', server)] });
  }
  return out;
}

const VOX_HOOK = /(?:^|[\s/'"])(?:vox|vox\.cjs|vox-mcp[\\/]+dist[\\/]+cli\.js)['"]?\s+hook\s+[A-Za-z]+\s*$/;

/** True for a command that vox installed, from this or any earlier install. */
export function isVoxHookCommand(command: unknown): boolean {
  return typeof command === 'string' && VOX_HOOK.test(command);
}

/** True for an mcp_tool hook that vox installed: a call of `hook` that passes the session id. */
export function isVoxMcpToolHook(h: unknown): boolean {
  if (!isObject(h) || h.type !== 'mcp_tool' || h.tool !== HOOK_TOOL || !isObject(h.input)) return false;
  return typeof h.input.event === 'string' && h.input.session_id === '${session_id}';
}
