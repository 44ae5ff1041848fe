/**
 * `vox hook <EVENT>`: what Claude Code runs for each hook event. Reads the
 * payload from stdin, finds the project's config from the payload's `cwd`,
 * asks hook.ts what to do, and sends it to voxd.
 *
 * Design notes:
 * - It always exits 0 and never waits long: a hook that fails or hangs would
 *   disturb the session it reports on. Problems go to stderr, one line each.
 * - Nothing is ever written to stdout (except with --dry-run, and a voice
 *   decision): Claude Code adds a SessionStart hook's stdout to the model's
 *   context. With `approveByVoice: true` a PermissionRequest, or an
 *   Elicitation of one choice, is asked by voice (claude/voice-answer.ts,
 *   its own bounds, under the 30 s hook timeout) and a clear answer is
 *   printed as the hook's output JSON.
 * - stdin is read until a complete JSON object has arrived, 1 s of silence, or
 *   2 s in all: Claude Code does not always close it.
 * - voxd gets 2 s to answer. When nothing listens, voxd is started (unless
 *   VOX_NO_AUTOSTART=1), but the whole call (start, connect, answer) has a 2.5 s deadline, not the 15 s start of `vox say`.
 * - On the hot path of every hook: imports the same few modules as `vox say`.
 */
import type { SpeakResponse, WireError } from '@vox/protocol';
import { call, settingsMismatch } from '../../daemon/client.js';
import type { Reply } from '../../daemon/http.js';
import { defineCommand } from '../command.js';
import { resolveConfig } from '../../project/config.js';
import { EXIT, type CliContext } from '../context.js';
import { warn as report } from '../report.js';
import {
  decideHook,
  hookDelivery,
  unattended,
  VOICE_EVENTS,
  type HookAction,
  type HookPayload,
} from '../../claude/hook.js';
import { sessionLabel } from '../../project/session.js';
import { noteSession } from '../../claude/current-session.js';
import { readStdin } from '../stdin.js';
import { AGENTS, normalizeEvent } from '../../agents/agent.js';

export const HOOK_USAGE = `Usage: vox hook EVENT [--dry-run]

Handle one Claude Code hook event. The payload (JSON) is read from stdin;
its "cwd" selects the project's .vox/config.md. Always exits 0; problems are
reported on stderr. Installed by "vox hooks install".

Events and what they say, by the project's "notify" setting
(docs/claude-code.md has the full table):
  PermissionRequest  normal, continuous: "<project> needs your permission to
                 use Bash" (important), at once; never decides the request,
                 unless approveByVoice: true, which asks "<project> wants to
                 run npm test. Allow or deny?" and prints a clear spoken
                 answer as the decision (docs/talk-back.md)
  Notification   normal, continuous: permission prompts (a duplicate of the
                 PermissionRequest), dialogs that need input (important),
                 "<project> is waiting for your input"; continuous adds the
                 informative types; auth_success and elicitation echoes: never
  Stop           normal, continuous: the first sentences of Claude's last
                 message, or "<project> is done"
  StopFailure    normal, continuous: "<project>: the request failed, ..."
  SubagentStop   continuous: the done chime
  SessionStart   continuous: "<project> session started" (resumed, forked;
                 nothing after /clear or a compaction)
  SessionEnd     continuous: the done chime
  PreCompact     continuous: "<project> is compacting context"
  Elicitation    never (its dialog's Notification speaks); with approveByVoice:
                 true, a form of one choice is asked ("<project>: deploy asks:
                 which environment? Say staging or production. Or say
                 cancel.") and a clear answer is printed as the hook's output
("continuous" is also spelled "chatty"; "quiet" is normal with the done
chime, not words, at Stop.)
With notify: off nothing is said; with speak: false a chime replaces speech.
Other events are ignored.

Options:
  --agent A    the payload is from claude (default), codex, gemini, copilot,
               opencode or qwen
               (docs/agents.md: how their events map to the ones above)
  --dry-run    print what would be sent (JSON) on stdout; send nothing
  -h, --help   show this help
`;

/** How long voxd has to answer a request, in ms. */
const REQUEST_TIMEOUT_MS = 2000;
/** How long a hook waits for a voxd it started, in ms. */
const START_TIMEOUT_MS = 2500;
/** The call's total deadline (start, connect, answer), whatever answers on the port: a hook never blocks Claude Code. */
export const HOOK_DEADLINE_MS = 2500;
/** stdin: wait this long for the first byte, and this long after the last one. */
const STDIN_IDLE_MS = 1000;
/** stdin: give up after this long in all. */
const STDIN_TOTAL_MS = 2000;
const STDIN_MAX_BYTES = 4 * 1024 * 1024;

/** Reads the payload with the bounds above; readStdin lets go of stdin afterwards. */
function readPayload(stdin: CliContext['stdin']): Promise<string> {
  if (stdin.isTTY) return Promise.resolve('');
  // Read directly, not through a PassThrough: the hook reads stdin on every event (bench/hook.mjs).
  return readStdin(stdin, {
    firstByteMs: STDIN_IDLE_MS,
    idleMs: STDIN_IDLE_MS,
    maxBytes: STDIN_MAX_BYTES,
    untilJson: true,
    totalMs: STDIN_TOTAL_MS,
  });
}

/** POST to voxd with short timeouts, starting it (briefly) when nothing listens. */
function post<T>(env: NodeJS.ProcessEnv, route: string, body: unknown): Promise<Reply<T>> {
  return call<T>(env, 'POST', route, body, REQUEST_TIMEOUT_MS, {
    startTimeoutMs: START_TIMEOUT_MS,
    deadlineMs: HOOK_DEADLINE_MS,
  });
}

// Lenient: a bad flag is reported and ignored, and so is anything run throws (defineCommand), because a hook must exit 0.
export const command = defineCommand({
  name: 'hook',
  usage: HOOK_USAGE,
  flags: { 'dry-run': { type: 'boolean' }, agent: { type: 'enum', values: AGENTS } },
  maxArgs: 1,
  lenient: true,
  async run({ ctx, flags, args }) {
    const warn = (line: string) => report(ctx, 'hook', line);
    const dryRun = flags['dry-run'] === true;

    const raw = await readPayload(ctx.stdin);
    let payload: HookPayload = {};
    if (raw.trim()) {
      try {
        const parsed: unknown = JSON.parse(raw);
        // Caught just below, with JSON.parse's own errors, and warned about: the hook never fails.
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          throw new Error('not a JSON object');
        payload = parsed as HookPayload;
      } catch (err) {
        warn(`the payload on stdin is not a JSON object (${(err as Error).message}); nothing said`);
        return EXIT.OK;
      }
    }
    const named = typeof payload.hook_event_name === 'string' ? payload.hook_event_name : '';
    const named0 = args[0] ?? named;
    // Another agent's event and payload in Claude Code's terms (agents/).
    const normalized = normalizeEvent(flags.agent ?? 'claude', named0, payload);
    const event = normalized.event;
    payload = normalized.payload;
    if (!named0) {
      warn('no event named: run as "vox hook EVENT" with the payload on stdin');
      return EXIT.OK;
    }

    // The payload's cwd even when it does not exist here: its name is still the project's.
    const cwd = typeof payload.cwd === 'string' && payload.cwd ? payload.cwd : ctx.cwd;
    const config = await resolveConfig(cwd);
    const projectName = config.projectName;
    const action: HookAction = decideHook(event, payload, {
      notify: config.values.notify,
      projectName,
      unattended: unattended(ctx.env),
      unattendedPrompts: config.values.unattendedPrompts,
    });
    const session = sessionLabel(
      projectName,
      ctx.env,
      typeof payload.session_id === 'string' && payload.session_id ? payload.session_id : undefined,
    );
    // For this Claude Code's vox mcp, which sees no hook of a command-only set-up: after /clear, this is the session's id.
    if ((flags.agent ?? 'claude') === 'claude' && !dryRun && typeof payload.session_id === 'string')
      noteSession(ctx.env, payload.session_id);
    if (VOICE_EVENTS.has(event) && config.values.approveByVoice && !dryRun && (flags.agent ?? 'claude') === 'claude') {
      const ask = await (await import('../../claude/voice-answer.js')).voiceAnswerOf(event, payload, config, session);
      if (ask) {
        const decided = await ask(ctx.env);
        if (decided.output) ctx.stdout.write(`${JSON.stringify(decided.output)}\n`);
        else warn(`no voice decision: ${decided.reason}; the ${event === 'Elicitation' ? 'dialog' : 'prompt'} stays`);
        return EXIT.OK;
      }
    }

    const delivery = hookDelivery(action, config, session);
    if (!delivery) {
      if (dryRun) ctx.stdout.write(`${JSON.stringify({ action })}\n`);
      return EXIT.OK;
    }
    const { route, body } = delivery;
    if (dryRun) {
      ctx.stdout.write(`${JSON.stringify({ action, route, body })}\n`);
      return EXIT.OK;
    }
    const reply = await post<SpeakResponse | WireError>(ctx.env, route, body);
    const mismatch = settingsMismatch(ctx.env);
    if (mismatch) warn(mismatch);
    if (reply.status >= 400) {
      const err = reply.body as Partial<WireError> | undefined;
      warn(
        `voxd refused the ${event} request: ${err?.code ?? `HTTP ${reply.status}`}: ${err?.message ?? 'no details'}`,
      );
    }
    return EXIT.OK;
  },
});
export const run = command.run;
