/**
 * The `hook` tool of `vox mcp`: what Claude Code's `mcp_tool` hooks call, so a
 * hook event reaches voxd through the session's own server, with no process
 * started (`vox hook` is the same policy for `command` hooks).
 *
 * Design notes:
 * - Hidden from the model (`tools/list` leaves it out; `tools/call` still
 *   runs it). It is plumbing: offered to the model, it would be one more tool
 *   to misread ("hook"?) beside speak and stop, and a way to fake a
 *   permission announcement. Claude Code's mcp_tool hooks call a tool by name
 *   whether or not the list shows it (tested with the real CLI,
 *   test/claude/claude-code.e2e.test.ts). docs/claude-code.md says why.
 * - Its input is the hook payload's fields, as Claude Code substitutes them:
 *   every `${field}` becomes a string (a missing field the empty string, a
 *   boolean "true"/"false"), so every field is read as an optional string.
 *   `event` is fixed in the settings entry.
 * - It answers an empty result on success: Claude Code reads a hook tool's
 *   text as the hook's output (JSON decisions, and for SessionStart, context
 *   for the model), and vox never decides or adds anything. A failure (voxd
 *   unreachable, an invalid config) is an `isError` result naming cause and
 *   fix, which Claude Code reports without blocking anything.
 * - The project is the payload's `cwd` (the session may have moved), else the
 *   server's. The payload's `session_id` is adopted as the session's id
 *   (project/session.ts): it is CLAUDE_CODE_SESSION_ID until a `/clear`,
 *   which gives the hooks a new id while this server keeps running, and the
 *   model's calls must follow it or its `stop` misses the new Stop summary.
 * - The event is handled by hooks/handle.ts, as `vox hook`'s: one
 *   announcement per permission ask (hooks/permission-asks.ts, shared with
 *   the command hooks' processes through VOX_HOME), the voice answer, the
 *   policy. Narration (MessageDisplay, UserPromptSubmit) is Claude Code's
 *   alone and stays here (claude/narration.ts), with what the transcript
 *   holds and MessageDisplay missed, read at PostToolUse, Stop, SubagentStop
 *   and a message's first batch (claude/transcript-narration.ts).
 * - voxd gets the short timeouts of `vox hook` (2 s, 5 s to start one): a hook
 *   must never hold the session.
 * - With `approveByVoice: true` a PermissionRequest, or an Elicitation that
 *   asks for one choice, is asked by voice (hooks/voice/voice-answer.ts) and a
 *   clear answer is the result's text: the hook output's JSON, which Claude
 *   Code reads as the hook's output. No answer is the empty result, and the
 *   prompt or dialog stays.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { NarrationRequest, WireError } from '@vox/protocol';
import type { NarrationDelivery } from '../../claude/narration.js';
import type { HookPayload } from '../../hooks/event.js';
import type { PermissionAsks } from '../../hooks/permission-asks.js';
import type { InputSchema } from '../schema.js';
import type { McpTool } from '../tool.js';

/** The tool's name: settings entries call `hook` on the session's vox server. */
export const HOOK_TOOL_NAME = 'hook';

/** How long voxd has to answer, in ms (as `vox hook`). */
const REQUEST_TIMEOUT_MS = 2000;
/** How long to wait for a voxd this call starts, in ms (as `vox hook`). */
const START_TIMEOUT_MS = 5000;

/** The payload fields the policy reads; each one a string after substitution. */
export const HOOK_FIELDS = [
  'session_id',
  'cwd',
  'notification_type',
  'message',
  'stop_hook_active',
  'last_assistant_message',
  'source',
  'trigger',
  'tool_name',
  'tool_input',
  'permission_suggestions',
  'tool_use_id',
  'error',
  'reason',
  'message_id',
  'index',
  'final',
  'delta',
  'mcp_server_name',
  'requested_schema',
  'mode',
  'elicitation_id',
  'transcript_path',
] as const;

const field = (description: string): InputSchema => ({ type: 'string', maxLength: 4 * 1024 * 1024, description });

export const HOOK_INPUT: InputSchema = {
  type: 'object',
  properties: {
    event: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'The hook event: Notification, PermissionRequest, Stop, StopFailure, ...',
    },
    ...Object.fromEntries(
      HOOK_FIELDS.map((f) => [f, field(`The hook payload's ${f}, as Claude Code substitutes "\${${f}}".`)]),
    ),
  },
  required: ['event'],
  // A newer settings entry may pass fields this version does not read.
  additionalProperties: true,
};

const EMPTY: CallToolResult = { content: [] };

/** The events that read the transcript's new tail (MessageDisplay: before a message's first batch). */
const TRANSCRIPT_EVENTS = new Set(['PostToolUse', 'Stop', 'SubagentStop', 'MessageDisplay']);

/**
 * UserPromptSubmit's answer: an empty hook output in JSON. Claude Code 2.1.332
 * adds a UserPromptSubmit hook's text to the model's context, and an empty
 * result became "UserPromptSubmit hook success: UserPromptSubmit completed"
 * in every prompt (seen in the stand-in's requests); `{}` adds nothing.
 */
const NOTHING_TO_ADD: CallToolResult = { content: [{ type: 'text', text: '{}' }] };

/** The narration module, once a project of this session narrated (its batches are sent in the background). */
let narrationLoaded: typeof import('../../claude/narration.js') | undefined;

/**
 * Hook calls still running. Claude Code does not wait for some before it
 * signals this server at exit (StopFailure: the call at +0 ms, SIGINT at
 * +18 ms in a `-p` run's debug log), so at exit they get the same moment as
 * narration batches to reach voxd, or the failure is never spoken.
 */
const running = new Set<Promise<unknown>>();

/** At exit: hook calls still running and the narration batches already answered get up to `ms` to reach voxd. */
export async function drainHookSends(ms: number): Promise<void> {
  const work = [...running, ...(narrationLoaded ? [narrationLoaded.drain(ms)] : [])];
  if (!work.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(work), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** This process's announced permission asks (one process per session). */
let asks: PermissionAsks | undefined;

function failed(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `vox: ${message}` }], isError: true };
}

export const hookTool: McpTool = {
  name: HOOK_TOOL_NAME,
  hidden: true,
  description:
    "For Claude Code's mcp_tool hooks only (never offered to the model): speaks a hook event of this session (a permission request, the reply's summary, ...) by the project's notify setting.",
  input: HOOK_INPUT,
  async warm(ctx) {
    const [, { resolveConfig }] = await Promise.all([
      import('../../hooks/handle.js'),
      import('../../project/config.js'),
      import('../../project/session.js'),
      import('../../hooks/permission-asks.js'),
      import('../../client/call.js'),
    ]);
    const config = await resolveConfig(ctx.cwd).catch(() => undefined);
    // A project that narrates has its first batch answered without a module to load, and voxd's engine warm.
    if (config?.values.narrate === 'stream') {
      const [{ narrationWarm }] = await Promise.all([
        import('../../claude/narration.js'),
        import('../../claude/transcript-narration.js'),
      ]);
      const warm = narrationWarm(config, await ctx.session(config));
      // A voxd that runs warms its engine; none is started from here (the first prompt's cut starts it).
      if (warm) await ctx.call('POST', '/v1/narration/warm', warm).catch(() => {});
    }
    // The connection to voxd (its state file, token, a kept-alive socket), if one runs: never started from here.
    await ctx.call('GET', '/v1/health').catch(() => {});
  },
  run(args, ctx) {
    const call = runHook(args, ctx);
    running.add(call);
    void call.catch(() => {}).finally(() => running.delete(call));
    return call;
  },
};

/** The hook tool's call: its event spoken, or answered, by the project's settings. */
async function runHook(...[args, ctx]: Parameters<McpTool['run']>): Promise<CallToolResult> {
  const event = args.event as string;
  const payload: HookPayload = {};
  for (const f of HOOK_FIELDS) if (typeof args[f] === 'string' && args[f] !== '') payload[f] = args[f];
  const [
    { handle },
    { resolveConfig },
    { adoptSessionId, labelsUsed, sessionLabel },
    { PermissionAsks, asksFile },
    client,
    { invalidConfig, narrationProfile, toDeclare },
  ] = await Promise.all([
    import('../../hooks/handle.js'),
    import('../../project/config.js'),
    import('../../project/session.js'),
    import('../../hooks/permission-asks.js'),
    import('../../client/call.js'),
    import('../../claude/narration-profile.js'),
  ]);
  // Remembered here and in VOX_HOME, where the command hooks' processes read it too.
  asks ??= new PermissionAsks(undefined, asksFile(ctx.env));
  let config;
  try {
    config = typeof payload.cwd === 'string' ? await resolveConfig(payload.cwd) : (await ctx.context()).config;
  } catch (err) {
    // Nothing narrates until the file is fixed: the mod's narration neither.
    for (const p of invalidConfig()) void send(ctx, client, event, '/v1/narration/session', p, false);
    return failed((err as Error).message);
  }
  // The newest id is the session's (after /clear), for the model's calls too; VOX_SESSION_ID still wins.
  if (typeof payload.session_id === 'string') adoptSessionId(payload.session_id);
  // The payload's project: the server's unless the session moved into another (both labels are the session's).
  const session =
    payload.session_id === undefined ? await ctx.session(config) : sessionLabel(config.projectName, ctx.env);
  // voxd speaks the vox mod's batches as this declares (claude/narration-profile.ts): at each prompt, and when the
  // config changed since the last one. Never starts voxd; at a prompt it goes beside the cut or the focus (no round
  // trip added), and again after it when voxd was not running before it (the cut or focus started it).
  const profile = narrationProfile(config, session);
  const declare = toDeclare(profile, event === 'UserPromptSubmit')
    ? () => send(ctx, client, event, '/v1/narration/session', profile, false)
    : undefined;
  const declaring = declare?.();
  const declared = async () => {
    if (declaring && (await declaring) !== undefined) await declare!();
  };
  // Loaded only where a project narrates (narrate: stream): a batch, or a new prompt that cuts it.
  const narration =
    config.values.narrate === 'stream' ? (narrationLoaded = await import('../../claude/narration.js')) : undefined;
  // And the transcript, where MessageDisplay missed a text (claude/transcript-narration.ts).
  const transcript = narration?.narrates(config) ? await import('../../claude/transcript-narration.js') : undefined;
  const path = transcript?.transcriptPathOf(payload);
  /** A batch sent behind the session's earlier ones; what voxd refuses is said on stderr. */
  const queue = (d: NarrationDelivery): Promise<void> => {
    narration!.noteNarrated(session);
    return narration!
      .inOrder(session, () => send(ctx, client, event, d.route, d.body))
      .then((refused) => void (refused && process.stderr.write(`vox: ${refused}\n`)));
  };
  if (transcript && path && TRANSCRIPT_EVENTS.has(event) && (event !== 'MessageDisplay' || payload.index === '0'))
    for (const d of transcript.catchUp(path, config, session)) void queue(d);
  if (event === 'PostToolUse') return EMPTY;
  if (event === 'MessageDisplay' || event === 'UserPromptSubmit') {
    const done = event === 'UserPromptSubmit' ? NOTHING_TO_ADD : EMPTY;
    // A new prompt moves voxd's focus here: the narration cut says so, else a focus of its own (docs/attention.md).
    // Not an error when voxd refuses it: the prompt is the person's, and nothing of theirs was lost.
    // A project set to narrate that narrates nothing now (notify: quiet) moves the focus all the same.
    const cuts = narration?.narrates(config) === true;
    if (!cuts && event === 'UserPromptSubmit') {
      await send(ctx, client, event, '/v1/focus', { session, reason: 'prompt' });
      await declared();
      return done;
    }
    if (!narration) return done;
    if (event === 'UserPromptSubmit') {
      narration.narrated(session);
      transcript?.markTurn(session, path);
    }
    const d = narration.narrationDelivery(event, payload, config, session, labelsUsed());
    if (!d) return event === 'UserPromptSubmit' ? declared().then(() => done) : done;
    if (event === 'UserPromptSubmit') {
      const refused = await narration.inOrder(session, () => send(ctx, client, event, d.route, d.body));
      // Before the model's first words: the mod's first batch finds the session declared.
      await declared();
      // The reply's first batch comes after the model's first words: its engine gets ready meanwhile.
      const warm = narration.narrationWarm(config, session);
      if (warm) void send(ctx, client, event, '/v1/narration/warm', warm);
      return refused === undefined ? done : failed(refused);
    }
    // Told from the transcript already: not again.
    const body = d.body as NarrationRequest;
    if (transcript && !transcript.told.display(session, body.message, String(payload.delta ?? ''))) return done;
    // A batch is answered at once and sent behind the session's earlier ones: Claude Code shows
    // nothing of the reply until the hook answers.
    const queued = queue(d);
    if (narration.backlog(session) > narration.MAX_BACKLOG) await queued;
    return done;
  }
  if (event === 'Stop' && transcript) {
    const last = transcript.finalText(String(payload.last_assistant_message ?? ''), config, session);
    if (last) void queue(last);
  }
  const outcome = await handle({
    event,
    payload,
    config,
    session,
    env: ctx.env,
    asks,
    voice: true,
    signal: ctx.signal,
    narrated: event === 'Stop' && narration !== undefined && narration.narrated(session),
    send: (route, body) => send(ctx, client, event, route, body),
  });
  if (outcome.kind === 'voice')
    return outcome.output ? { content: [{ type: 'text', text: JSON.stringify(outcome.output) }] } : EMPTY;
  return outcome.refused !== undefined ? failed(outcome.refused) : EMPTY;
}

/** Send one request to voxd; undefined when it was taken, else why not. Never throws. */
async function send(
  ctx: Parameters<McpTool['run']>[1],
  client: typeof import('../../client/call.js'),
  event: string,
  route: string,
  body: unknown,
  autostart = true,
): Promise<string | undefined> {
  try {
    const env = autostart ? ctx.env : { ...ctx.env, VOX_NO_AUTOSTART: '1' };
    const reply = await client.call<WireError>(env, 'POST', route, body, REQUEST_TIMEOUT_MS, {
      startTimeoutMs: START_TIMEOUT_MS,
    });
    if (reply.status < 400) return undefined;
    const err = reply.body as Partial<WireError>;
    return `voxd refused the ${event} request: ${err.code ?? `HTTP ${reply.status}`}: ${err.message ?? 'no details'}`;
  } catch (err) {
    const e = err as Error & { code?: string };
    return `${e.code && !e.message.includes(e.code) ? `${e.code}: ` : ''}${e.message}`;
  }
}
