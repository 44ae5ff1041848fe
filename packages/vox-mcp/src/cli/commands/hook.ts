/**
 * `vox hook <EVENT>`: what every agent's command hooks run for each event.
 * Reads the payload from stdin, has the agent's adapter (`--agent`,
 * cli/agent-table.ts) make it vox's event, finds the project's config from
 * the payload's `cwd`, and hands it to hooks/handle.ts, which decides and
 * sends; this module only reads and reports.
 *
 * Design notes:
 * - It always exits 0 and never waits long: a hook that fails or hangs would
 *   disturb the session it reports on. Problems go to stderr, one line each.
 * - Nothing is ever written to stdout (except with --dry-run, and a voice
 *   decision): Claude Code adds a SessionStart hook's stdout to the model's
 *   context. With `approveByVoice: true` a PermissionRequest, or an
 *   Elicitation of one choice, is asked by voice (hooks/voice/voice-answer.ts,
 *   its own bounds, under the 30 s hook timeout) and a clear answer is
 *   printed as the hook's output JSON.
 * - stdin is read until a complete JSON object has arrived, 1 s of silence, or
 *   2 s in all (Claude Code does not always close it), within bounds of size
 *   and nesting checked as it arrives (cli/hook-payload.ts).
 * - voxd gets 2 s to answer. When nothing listens, voxd is started (unless
 *   VOX_NO_AUTOSTART=1), but the whole call (start, connect, answer) has a 2.5 s deadline, not the 15 s start of `vox say`.
 * - On the hot path of every hook: imports the same few modules as `vox say`.
 */
import type { WireError } from '@vox/protocol';
import { call } from '../../client/call.js';
import { settingsMismatch } from '../../daemon/settings-mismatch.js';
import { defineCommand } from '../command.js';
import { resolveConfig } from '../../project/config.js';
import { EXIT, type CliContext } from '../context.js';
import { warn as report } from '../report.js';
import { handle } from '../../hooks/handle.js';
import { asksFile, PermissionAsks } from '../../hooks/permission-asks.js';
import { sessionLabel } from '../../project/session.js';
import { readHookPayload } from '../hook-payload.js';
import { wrap } from '../usage.js';
import { agentList, agentNamed, AGENT_NAMES } from '../agent-table.js';

export const HOOK_USAGE = `Usage: vox hook EVENT [--dry-run]

Handle one Claude Code hook event. The payload (JSON) is read from stdin;
its "cwd" selects the project's .vox/config.md. Always exits 0; problems are
reported on stderr. Installed by "vox hooks install".

Events and what they say, by the project's "notify" setting
(docs/claude-code.md has the full table):
  PermissionRequest  normal, chatty: "<project> needs your permission to
                 use Bash" (important), at once; never decides the request,
                 unless approveByVoice: true, which asks "<project> wants to
                 run npm test. Allow or deny?" and prints a clear spoken
                 answer as the decision (docs/talk-back.md)
  Notification   normal, chatty: permission prompts (a duplicate of the
                 PermissionRequest), dialogs that need input (important),
                 "<project> is waiting for your input"; chatty adds the
                 informative types; auth_success and elicitation echoes: never
  Stop           normal, chatty: the first sentences of Claude's last
                 message, or "<project> is done"
  StopFailure    normal, chatty: "<project>: the request failed, ..."
  SubagentStop   chatty: the done chime
  SessionStart   chatty: "<project> session started" (resumed, forked;
                 nothing after /clear or a compaction)
  SessionEnd     chatty: the done chime
  PreCompact     chatty: "<project> is compacting context"
  Elicitation    never (its dialog's Notification speaks); with approveByVoice:
                 true, a form of one choice is asked ("<project>: deploy asks:
                 which environment? Say staging or production. Or say
                 cancel.") and a clear answer is printed as the hook's output
("continuous", chatty's older name, is still taken; "quiet" is normal with
the done chime, not words, at Stop.)
With notify: off nothing is said; with speak: false a chime replaces speech.
Other events are ignored.

Options:
  --agent A    ${wrap(`the payload is from ${agentList()} (docs/agents.md: how their events map to the ones above)`, 15)}
  --dry-run    print what would be sent (JSON) on stdout; send nothing
  -h, --help   show this help
`;

/** How long voxd has to answer a request, in ms. */
const REQUEST_TIMEOUT_MS = 2000;
/** How long a hook waits for a voxd it started, in ms. */
const START_TIMEOUT_MS = 2500;
/** The call's total deadline (start, connect, answer), whatever answers on the port: a hook never blocks Claude Code. */
export const HOOK_DEADLINE_MS = 2500;
/** POST to voxd with short timeouts, starting it (briefly) when nothing listens; undefined when taken, else why not. */
async function post(env: NodeJS.ProcessEnv, event: string, route: string, body: unknown): Promise<string | undefined> {
  const reply = await call<WireError>(env, 'POST', route, body, REQUEST_TIMEOUT_MS, {
    startTimeoutMs: START_TIMEOUT_MS,
    deadlineMs: HOOK_DEADLINE_MS,
  });
  if (reply.status < 400) return undefined;
  const err = reply.body as Partial<WireError> | undefined;
  return `voxd refused the ${event} request: ${err?.code ?? `HTTP ${reply.status}`}: ${err?.message ?? 'no details'}`;
}

// Lenient: a bad flag is reported and ignored, and so is anything run throws (defineCommand), because a hook must exit 0.
export const command = defineCommand({
  name: 'hook',
  usage: HOOK_USAGE,
  flags: { 'dry-run': { type: 'boolean' }, agent: { type: 'enum', values: AGENT_NAMES } },
  maxArgs: 1,
  lenient: true,
  async run({ ctx, flags, args }) {
    const warn = (line: string) => report(ctx, 'hook', line);
    const dryRun = flags['dry-run'] === true;

    const read = await readHookPayload(ctx.stdin);
    if ('problem' in read) {
      warn(`${read.problem}; nothing said`);
      return EXIT.OK;
    }
    const payload = read.payload;
    const named = args[0] ?? (typeof payload.hook_event_name === 'string' ? payload.hook_event_name : '');
    const agent = agentNamed(flags.agent);
    const { event, payload: vox } = agent.toEvent(named, payload);
    if (!named) {
      warn('no event named: run as "vox hook EVENT" with the payload on stdin');
      return EXIT.OK;
    }

    // The payload's cwd even when it does not exist here: its name is still the project's.
    const cwd = typeof vox.cwd === 'string' && vox.cwd ? vox.cwd : ctx.cwd;
    const config = await resolveConfig(cwd);
    const id = typeof vox.session_id === 'string' && vox.session_id ? vox.session_id : undefined;
    const session = sessionLabel(config.projectName, ctx.env, id);
    if (!dryRun) agent.seen?.(ctx.env, vox);
    const outcome = await handle({
      event,
      payload: vox,
      config,
      session,
      env: ctx.env,
      // Shared with every other hook process and the session's vox mcp: one announcement per ask.
      asks: new PermissionAsks(undefined, asksFile(ctx.env)),
      voice: agent.answersByVoice,
      dryRun,
      send: (route, body) => post(ctx.env, event, route, body),
    });
    if (outcome.kind === 'voice') {
      if (outcome.output) ctx.stdout.write(`${JSON.stringify(outcome.output)}\n`);
      else warn(`no voice decision: ${outcome.reason}; the ${event === 'Elicitation' ? 'dialog' : 'prompt'} stays`);
      return EXIT.OK;
    }
    const { action, delivery } = outcome;
    if (dryRun) {
      ctx.stdout.write(
        `${JSON.stringify(delivery ? { action, route: delivery.route, body: delivery.body } : { action })}\n`,
      );
      return EXIT.OK;
    }
    if (!delivery) return EXIT.OK;
    const mismatch = settingsMismatch(ctx.env);
    if (mismatch) warn(mismatch);
    if (outcome.refused) warn(outcome.refused);
    return EXIT.OK;
  },
});
export const run = command.run;
