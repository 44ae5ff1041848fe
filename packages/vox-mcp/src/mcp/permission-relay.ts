/**
 * Claude Code's channel permission relay: while a permission dialog is open,
 * Claude Code 2.1.332 sends each registered channel server that declares
 * `experimental["claude/channel/permission"]` the notification
 * `notifications/claude/channel/permission_request {request_id, tool_name,
 * description, input_preview}`, and takes the first
 * `notifications/claude/channel/permission {request_id, behavior: "allow" |
 * "deny"}` that names a request still open as the user's answer.
 *
 * vox announces the request ("api wants to run npm test") and, when the
 * project sets `approveByVoice: true`, asks by voice: the request is a
 * PermissionRequest handled by hooks/handle.ts, as the hook's (the policy,
 * the asks announced, hooks/voice/voice-decision.ts: its strict grammar, one
 * ask at a time, its decision log), and the behavior heard is the answer.
 * Never a guess: silence, an unclear word, "always" (the relay has no
 * "always"), a busy or absent voxd, or the time running out send nothing, and
 * the dialog stays for the keyboard.
 *
 * Where the plugin's hooks serve this session (its `vox mcp` has answered a
 * `hook` call), the PermissionRequest hook announces and asks already: the
 * relay stays quiet then, so one dialog is never asked twice.
 */
import type { PermissionAsks } from '../hooks/permission-asks.js';
import type { PermissionOutput } from '../hooks/voice/voice-decision.js';
import type { ResolvedConfig } from '../project/config-schema.js';

export const PERMISSION_METHOD = 'notifications/claude/channel/permission';
/** Claude Code's ids are five letters; anything longer than this is not one. */
const MAX_ID_CHARS = 64;
const MAX_TOOL_CHARS = 200;
const MAX_PREVIEW_CHARS = 8192;
/** Requests relayed at once: each holds at most one voice turn, and Claude Code opens one dialog at a time. */
const MAX_IN_FLIGHT = 4;

/** The request ids being relayed now (one process per session). */
const inFlight = new Set<string>();
/** The asks this process announced, and every hook process's (hooks/permission-asks.ts). */
let asks: PermissionAsks | undefined;

export interface PermissionRequest {
  requestId: string;
  tool: string;
  description: string;
  /** The tool's input as Claude Code previews it; an object when the preview is JSON. */
  toolInput?: Record<string, unknown>;
}

/** The request's fields, checked, or the reason it is not one (logged: a notification has no answer). */
export function readPermissionRequest(params: unknown): PermissionRequest | string {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return 'params is not an object';
  const p = params as Record<string, unknown>;
  const id = p.request_id;
  if (typeof id !== 'string' || !id || id.length > MAX_ID_CHARS || !/^[A-Za-z0-9_-]+$/.test(id))
    return 'request_id is not an id (1 to 64 letters, digits, _ or -)';
  const tool = typeof p.tool_name === 'string' ? p.tool_name.trim() : '';
  if (!tool || tool.length > MAX_TOOL_CHARS) return 'tool_name is missing or longer than 200 characters';
  const description = typeof p.description === 'string' ? p.description.slice(0, MAX_PREVIEW_CHARS) : '';
  let toolInput: Record<string, unknown> | undefined;
  if (typeof p.input_preview === 'string' && p.input_preview.length <= MAX_PREVIEW_CHARS) {
    try {
      const v: unknown = JSON.parse(p.input_preview);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) toolInput = v as Record<string, unknown>;
    } catch {
      // A preview, not JSON: the ask names the tool only.
    }
  }
  return { requestId: id, tool, description, ...(toolInput ? { toolInput } : {}) };
}

export interface RelayOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  session(config?: ResolvedConfig): Promise<string>;
  notify(message: { jsonrpc: '2.0'; method: string; params: { request_id: string; behavior: 'allow' | 'deny' } }): void;
  log(line: string): void;
  /** The plugin's hooks serve this session: its PermissionRequest hook asks instead. */
  hooksServe(): boolean;
}

/** What the relay did with one request (returned for the tests and the log). */
export interface RelayOutcome {
  behavior?: 'allow' | 'deny';
  reason: string;
}

/** Announces one request and, with approveByVoice, answers it by voice. Never throws. */
export async function relayPermission(o: RelayOptions, params: unknown): Promise<RelayOutcome> {
  const request = readPermissionRequest(params);
  if (typeof request === 'string') {
    o.log(`vox mcp: a channel permission_request was ignored: ${request}`);
    return { reason: request };
  }
  if (o.hooksServe()) return { reason: "the plugin's PermissionRequest hook asks for this session" };
  if (inFlight.has(request.requestId)) return { reason: `request ${request.requestId} is being relayed already` };
  if (inFlight.size >= MAX_IN_FLIGHT) return { reason: `${MAX_IN_FLIGHT} requests are being relayed already` };
  inFlight.add(request.requestId);
  try {
    const { resolveConfig } = await import('../project/config.js');
    const config = await resolveConfig(o.cwd);
    if (config.values.notify === 'off') return { reason: 'notify is off' };
    const session = await o.session(config);
    const [{ handle }, { asksFile, PermissionAsks }, { askText }, { buildDelivery }, { call }] = await Promise.all([
      import('../hooks/handle.js'),
      import('../hooks/permission-asks.js'),
      import('../hooks/voice/voice-decision.js'),
      import('../project/speech.js'),
      import('../client/call.js'),
    ]);
    asks ??= new PermissionAsks(undefined, asksFile(o.env));
    const { requestId, tool, toolInput } = request;
    const outcome = await handle({
      event: 'PermissionRequest',
      // The channel's request id is no tool_use_id: it names the ask in the log, as requestId only.
      payload: { tool_name: tool, permission_request_id: requestId, ...(toolInput ? { tool_input: toolInput } : {}) },
      config,
      session,
      env: o.env,
      asks,
      voice: true,
      // askText ends with the question ("Allow or deny?"): without approveByVoice nobody listens, so only what it asks is said.
      deliver: () => {
        const q = askText({ projectName: config.projectName, tool, ...(toolInput ? { toolInput } : {}) });
        const asked = q.ok ? q.text.replace(/\s*(?:Allow, always, or deny|Allow or deny)\?$/, '') : q.text;
        return buildDelivery(asked, config, session, { priority: 'important', chime: 'prompt', once: 1 });
      },
      send: async (route, body) => {
        const reply = await call(o.env, 'POST', route, body);
        return reply.status < 400 ? undefined : `voxd refused the announcement: HTTP ${reply.status}`;
      },
    });
    if (outcome.kind === 'action') {
      if (outcome.refused) return { reason: outcome.refused };
      return { reason: outcome.action.kind === 'none' ? outcome.action.reason : 'announced' };
    }
    // The relay has no "always": without permission_suggestions the grammar is allow or deny.
    const behavior = (outcome.output as PermissionOutput | undefined)?.hookSpecificOutput.decision.behavior;
    if (!behavior) return { reason: outcome.reason };
    o.notify({ jsonrpc: '2.0', method: PERMISSION_METHOD, params: { request_id: requestId, behavior } });
    return { behavior, reason: outcome.reason };
  } catch (err) {
    const reason = `no answer: ${(err as Error).message}`;
    o.log(`vox mcp: channel permission ${request.requestId}: ${reason}`);
    return { reason };
  } finally {
    inFlight.delete(request.requestId);
  }
}
