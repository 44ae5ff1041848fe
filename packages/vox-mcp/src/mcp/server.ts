/**
 * The MCP server of one Claude Code session (`vox mcp`): six tools that turn
 * the model's calls into requests to voxd, in this session's context (its
 * working directory, its `.vox/config.md`, its session label). This module
 * is the registry: it gathers the tools (tools/), gives them their context
 * and runs them; protocol.ts speaks MCP and stdio.ts carries it.
 */
import type { CallToolResult, JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js';
import { printable } from '@vox/protocol';
import { AbortError } from '../errors.js';
import type { ResolvedConfig } from '../project/config-schema.js';
import { createProtocol } from './protocol.js';
import { checkInput, show, type InputSchema } from './schema.js';
import { errorResult, toolError, type McpTool, type ToolContext } from './tool.js';
import { configure } from './tools/configure.js';
import { recap } from './tools/recap.js';
import { record } from './tools/record.js';
import { speak } from './tools/speak.js';
import { status } from './tools/status.js';
import { stop } from './tools/stop.js';
import { voices } from './tools/voices.js';

/** When this process started, in ms since the epoch (performance.timeOrigin without loading perf_hooks' 0.25 MB). */
const startedAt = (): number => Date.now() - process.uptime() * 1000;

/** The tools the model is offered, in `tools/list` order. */
export const BUILTIN_TOOLS: readonly McpTool[] = [speak, stop, voices, status, configure, record, recap];

export interface VoxMcpOptions {
  env: NodeJS.ProcessEnv;
  /** The session's working directory: where the config walk starts and relative paths resolve. */
  cwd: string;
  /** Diagnostics, one line each. Never stdout: that is the JSON-RPC channel. */
  log: (line: string) => void;
  /** Tools from other modules, served after the built-in ones (cli/commands/mcp.ts passes them). */
  tools?: readonly McpTool[];
  /** Sends a notification to the client (the channel permission relay's answers); without it, none is sent. */
  notify?: (message: JSONRPCMessage) => void;
}

export interface VoxMcp {
  /** The tools with their input schemas, as `tools/list` returns them (hidden tools left out). */
  listTools(): Promise<Tool[]>;
  /** Runs one tool. Never throws: a failure is a result with `isError: true`. */
  callTool(name: string, args: unknown, signal?: AbortSignal): Promise<CallToolResult>;
  /**
   * Answers one JSON-RPC message: the response to a request, undefined for a
   * notification or a response. Never throws.
   */
  handle(message: unknown): Promise<JSONRPCMessage | JSONRPCMessage[] | undefined>;
}

/** Builds the tools and the protocol for one session. Serving them on a stream is `serveStdio`'s part. */
export function createVoxMcp(options: VoxMcpOptions): VoxMcp {
  const { env, cwd, log } = options;
  const tools = new Map<string, McpTool>();
  for (const t of [...BUILTIN_TOOLS, ...(options.tools ?? [])]) {
    // Can't happen but by a bug in the tool lists (BUILTIN_TOOLS, the mcp command's EXTRA_TOOLS): an assertion, not a report.
    if (tools.has(t.name)) throw new Error(`vox mcp: two tools are named "${t.name}"`);
    tools.set(t.name, t);
  }

  let toolList: Tool[] | undefined;
  const schemas = new Map<string, InputSchema>();
  async function inputOf(tool: McpTool): Promise<InputSchema> {
    let s = schemas.get(tool.name);
    if (!s) {
      s = typeof tool.input === 'function' ? await tool.input() : tool.input;
      schemas.set(tool.name, s);
    }
    return s;
  }

  async function listTools(): Promise<Tool[]> {
    toolList ??= await Promise.all(
      [...tools.values()]
        .filter((t) => !t.hidden)
        .map(async (t) => ({
          name: t.name,
          description: t.description,
          inputSchema: (await inputOf(t)) as Tool['inputSchema'],
          ...(t.output ? { outputSchema: t.output as Tool['outputSchema'] } : {}),
          annotations: t.readOnly
            ? { readOnlyHint: true, openWorldHint: false }
            : { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
        })),
    );
    return toolList;
  }

  // One project name per process; the id follows the session (/clear gives a new one: project/session.ts).
  let project: string | undefined;
  let parents: number[] | undefined;
  async function sessionOf(config?: ResolvedConfig): Promise<string> {
    const { adoptedAt, adoptSessionId, sessionLabel } = await import('../project/session.js');
    // Under Claude Code, a command hook may have noted a newer id (/clear) that no hook tool told us (claude/current-session.ts).
    if (env.CLAUDE_CODE_SESSION_ID && !env.VOX_SESSION_ID) {
      const { notedSession, parentPids } = await import('../claude/current-session.js');
      const noted = notedSession(env, (parents ??= parentPids()), Math.max(startedAt(), adoptedAt()));
      if (noted) adoptSessionId(noted.id, noted.atMs);
    }
    project ??= config?.projectName;
    if (!project) {
      // Without a valid config (stop must still work), the name is found the way resolveConfig finds it.
      const { projectNameFor } = await import('../project/config.js');
      project = projectNameFor(cwd);
    }
    return sessionLabel(project, env);
  }

  async function context(): Promise<{ config: ResolvedConfig; session: string }> {
    const { resolveConfig } = await import('../project/config.js');
    const config = await resolveConfig(cwd); // on every call: edits apply without a restart
    return { config, session: await sessionOf(config) };
  }

  async function call<T>(method: string, path: string, body?: unknown, autostart = true) {
    const [client, { settingsMismatch }] = await Promise.all([
      import('../client/call.js'),
      import('../daemon/settings-mismatch.js'),
    ]);
    const reply = await client.call<T>(autostart ? env : { ...env, VOX_NO_AUTOSTART: '1' }, method, path, body);
    // Once per session: this session's VOXD_AUDIO/VOXD_ENGINE are not what voxd uses.
    const mismatch = settingsMismatch(env);
    if (mismatch) log(`vox mcp: ${mismatch}`);
    return reply;
  }

  const never = new AbortController().signal;

  /** The plugin's hooks call this server's `hook` tool: then its PermissionRequest hook, not the channel relay, asks. */
  let hooksServe = false;

  async function callTool(name: string, args: unknown, signal: AbortSignal = never): Promise<CallToolResult> {
    // The name of tools/hook.ts's tool (HOOK_TOOL_NAME), not imported: that module loads with the cli's extra tools only.
    if (name === 'hook' && tools.has(name)) hooksServe = true;
    const tool = tools.get(name);
    if (!tool)
      return toolError(
        `Unknown tool "${name}". vox's tools: ${[...tools.values()]
          .filter((t) => !t.hidden)
          .map((t) => t.name)
          .join(', ')}.`,
      );
    try {
      const input = args ?? {};
      if (typeof input !== 'object' || Array.isArray(input))
        return toolError(`The arguments of ${name} must be an object, got ${show(input)}.`);
      if (tool.check !== false) {
        const problems = checkInput(await inputOf(tool), input);
        if (problems.length) return toolError(`Invalid input for ${name}: ${problems.join('; ')}.`);
      }
      const guarded: ToolContext['call'] = (method, path, body, autostart) => {
        // A cancelled call starts nothing new at voxd (speak: nothing is said).
        if (signal.aborted) throw new AbortError('the call was cancelled');
        return call(method, path, body, autostart);
      };
      return await tool.run(input as Record<string, unknown>, {
        env,
        cwd,
        log,
        context,
        session: sessionOf,
        call: guarded,
        signal,
      });
    } catch (err) {
      const e = err as Error & { code?: unknown };
      if (e?.name !== 'ConfigError' && !(err instanceof AbortError) && !String(e?.code ?? '').startsWith('VOX_ERR_'))
        log(`${name}: unexpected error: ${printable(String(e?.stack ?? e).slice(0, 2000))}`);
      return errorResult(err);
    }
  }

  /**
   * The first hook call of a session would otherwise pay for its imports, its
   * schema and its config (33 ms against 8 ms for the next, measured): do that
   * once the client is set up, while Claude Code is still starting its
   * session, so the Stop hook of a short `claude -p` run does not wait on it.
   */
  let warmed = false;
  function initialized(): void {
    if (warmed) return;
    warmed = true;
    const quiet: ToolContext['call'] = (method, path, body) => call(method, path, body, false);
    setImmediate(() => {
      for (const tool of tools.values()) {
        if (!tool.warm) continue;
        void inputOf(tool)
          .then(() => tool.warm!({ env, cwd, log, context, session: sessionOf, call: quiet, signal: never }))
          .catch(() => {});
      }
    });
  }

  function channelPermission(params: unknown): void {
    const notify = options.notify;
    if (!notify) return;
    void import('./permission-relay.js')
      .then(async ({ relayPermission }) => {
        const id = (params as { request_id?: unknown } | null)?.request_id;
        const outcome = await relayPermission(
          { env, cwd, session: sessionOf, notify: notify as (m: unknown) => void, log, hooksServe: () => hooksServe },
          params,
        );
        log(
          `vox mcp: channel permission ${typeof id === 'string' ? printable(id.slice(0, 64)) : '?'}: ${outcome.behavior ? `answered ${outcome.behavior}` : 'no answer'} (${outcome.reason})`,
        );
      })
      .catch((err: Error) => log(`vox mcp: the channel permission relay failed: ${err.message}`));
  }

  const handle = createProtocol({
    listTools,
    hasTool: (name) => tools.has(name),
    callTool,
    initialized,
    channelPermission,
    log,
  });
  return { listTools, callTool, handle };
}
