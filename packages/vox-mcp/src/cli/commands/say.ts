/**
 * `vox say [TEXT | -]` and its alias `vox unmute` (what Biff runs). On the hot
 * path of every hook: it imports node:http, the config walker and nothing else
 * that is heavy unless the project has a config file.
 */
import {
  compareVersions,
  MAX_ONCE_SECONDS,
  MIN_ONCE_SECONDS,
  PRIORITIES,
  VERSION,
  type SpeakResponse,
  type WireError,
} from '@vox/protocol';
import { call } from '../../client/call.js';
import { settingsMismatch } from '../../daemon/settings-mismatch.js';
import { resolveConfig } from '../../project/config.js';
import { EXIT, unlessAborted, type CliContext } from '../context.js';
import { defineCommand, type FlagSpecs, type FlagValues } from '../command.js';
import { UsageError } from '../usage.js';
import { sessionLabel } from '../../project/session.js';
import { buildDelivery, type SpeechOverrides } from '../../project/speech.js';
import { readStdin } from '../stdin.js';
import { ClientError } from '../../errors.js';
import { reportWireError } from '../report.js';

export const SAY_USAGE = `Usage: vox say [options] [TEXT | -]
       vox unmute [options] [TEXT | -]

Speak TEXT through voxd. With "-", or when stdin is a pipe and no TEXT is
given, the text is read from stdin (bounded wait; never blocks on a terminal).

Options:
  --voice NAME       voice (default: the project's, else the engine's)
  --rate WPM         words per minute
  --once N           treat repeats within N seconds (${MIN_ONCE_SECONDS}-${MAX_ONCE_SECONDS}) as duplicates (default 5)
  --key KEY          duplicate key to use instead of the text
  --priority P       ${PRIORITIES.join(', ')} (default: the project's, else message)
  --max-age MS       drop the request if it has not started within MS milliseconds
  --engine NAME      engine to use (default: the project's, else automatic)
  --model NAME       engine model
  --out FILE.wav     save the audio to a WAV file (WAV only) instead of
                     playing it; prints the file, its length and engine
  --wait             return after playback; exit 5 if it failed
  --timeout S        give up after S seconds (default 10; with --wait
                     120 plus 0.2 per character of the text)
  --json             print voxd's JSON response on stdout
  -q, --quiet        print nothing, not even warnings
  -h, --help         show this help

Exit codes: 0 queued, played or deduped; 2 bad usage; 3 voxd unreachable;
4 input rejected; 5 playback failed (--wait) or no audio output; 6 token refused;
7 invalid config.
`;

const FLAGS = {
  voice: { type: 'string' },
  rate: { type: 'number', min: 80, max: 500 },
  once: { type: 'number', min: MIN_ONCE_SECONDS, max: MAX_ONCE_SECONDS },
  key: { type: 'string' },
  priority: { type: 'enum', values: PRIORITIES },
  'max-age': { type: 'duration', unit: 'ms', min: 0, max: 86_400_000 },
  engine: { type: 'string' },
  model: { type: 'string' },
  out: { type: 'string' },
  wait: { type: 'boolean' },
  timeout: { type: 'duration', unit: 's', min: 0.1, max: 86_400 },
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
} as const satisfies FlagSpecs;

export const command = defineCommand({
  name: 'say',
  usage: SAY_USAGE,
  flags: FLAGS,
  maxArgs: Infinity,
  quiet: 'quiet',
  run: ({ ctx, flags, args }) => speak(ctx, flags, args),
});
export const run = command.run;

/**
 * How long `--wait` waits for the outcome: 2 minutes for the queue ahead, plus
 * 200 ms a character (speech is about 15 a second, so 3x that). Finite, so a
 * stalled or trickling voxd cannot hold it for ever (docs/cli.md).
 */
export function waitDeadlineMs(text: string): number {
  return 120_000 + 200 * text.length;
}

async function speak(ctx: CliContext, values: FlagValues<typeof FLAGS>, positionals: string[]): Promise<number> {
  const say = (line: string) => ctx.stderr.write(`vox say: ${line}\n`);
  const quiet = values.quiet === true;
  const report = (line: string) => {
    if (!quiet) say(line);
  };

  const overrides: SpeechOverrides = {};
  if (values.voice) overrides.voice = values.voice;
  if (values.rate !== undefined) overrides.rate = values.rate;
  if (values.once !== undefined) overrides.once = values.once;
  if (values.key) overrides.dedupKey = values.key;
  if (values.priority) overrides.priority = values.priority;
  if (values['max-age'] !== undefined) overrides.maxAgeMs = Math.round(values['max-age']);
  if (values.engine) overrides.engine = values.engine;
  if (values.model) overrides.model = values.model;
  if (values.wait) overrides.wait = true;
  const timeoutMs = values.timeout === undefined ? undefined : Math.round(values.timeout);

  if (values.out) {
    const { outProblem } = await import('../../client/recording.js');
    const problem = outProblem(ctx.cwd, values.out);
    if (problem) throw new UsageError(problem);
  }

  let text = positionals.join(' ');
  if (positionals.length === 1 && positionals[0] === '-') text = '';
  const fromStdin = positionals[0] === '-' || (positionals.length === 0 && !ctx.stdin.isTTY);
  if (fromStdin) {
    text = await readStdin(ctx.stdin, { firstByteMs: 2000, idleMs: 500, maxBytes: 1024 * 1024 });
  }
  if (!text.trim()) {
    const why =
      positionals.length === 0 && ctx.stdin.isTTY
        ? 'no text given. Usage: vox say TEXT (or pipe text in).'
        : 'no text to speak.';
    say(`VOX_ERR_CLIENT_NO_TEXT: ${why}`);
    return EXIT.USAGE;
  }

  const config = await resolveConfig(ctx.cwd);
  const session = sessionLabel(config.projectName, ctx.env);
  if (values.out) {
    const { recordTo } = await import('../out-file.js');
    return await recordTo(ctx, values.out, text, config, session, overrides, { json: values.json === true, quiet });
  }
  const delivery = buildDelivery(text, config, session, overrides);
  // With --wait, a signal stops the waiting only: what voxd accepted it plays (it owns it), and this exits 0.
  const signal = values.wait ? ctx.takeSignals?.() : undefined;
  let reply;
  try {
    reply = await unlessAborted(
      call<SpeakResponse | WireError>(
        ctx.env,
        'POST',
        delivery.route,
        delivery.body,
        timeoutMs ?? (values.wait ? waitDeadlineMs(text) : 10_000),
        signal ? { signal } : {},
      ),
      signal,
    );
  } catch (err) {
    if (!signal?.aborted) throw err;
    report('stopped waiting (a signal); voxd still speaks what it accepted');
    return EXIT.OK;
  }
  if (values.json) ctx.stdout.write(`${JSON.stringify(reply.body)}\n`);
  const mismatch = settingsMismatch(ctx.env);
  if (mismatch) report(mismatch);
  if (reply.daemonVersion && compareVersions(reply.daemonVersion, VERSION) < 0) {
    report(`voxd ${reply.daemonVersion} is older than this vox (${VERSION}); run "vox daemon restart"`);
  }
  if (reply.status >= 400) return reportWireError(ctx, 'say', reply.status, reply.body, { quiet });
  const res = reply.body as SpeakResponse;
  if (typeof res !== 'object' || res === null || typeof res.status !== 'string' || typeof res.id !== 'string') {
    throw new ClientError(
      'VOX_ERR_CLIENT_NOT_VOXD',
      `voxd's answer to ${delivery.route} is not a speak response (${JSON.stringify(reply.body)?.slice(0, 80)}); run "vox daemon restart"`,
    );
  }
  if (res.fallbackReason) report(`spoken with ${res.engine}: ${res.fallbackReason}`);
  switch (res.status) {
    case 'queued':
    case 'played':
    case 'deduped':
      return EXIT.OK;
    case 'failed':
      report(`${res.error?.code ?? 'failed'}: ${res.error?.message ?? res.reason ?? 'playback failed'}`);
      return EXIT.PLAYBACK_FAILED;
    case 'held':
      // attention: focus, and this session is not the person's: a digest or vox recap says it.
      report(`held${res.reason ? `: ${res.reason}` : ''}`);
      return EXIT.OK;
    default:
      // dropped, expired, replaced, interrupted, stopped: reported, not an error of the caller's.
      report(`${res.status}${res.reason ? `: ${res.reason}` : ''}`);
      return values.wait ? EXIT.PLAYBACK_FAILED : EXIT.OK;
  }
}
