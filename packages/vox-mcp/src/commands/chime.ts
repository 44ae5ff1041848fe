/** `vox chime SIGNAL`: play a chime (done, prompt, error, attention). */
import { parseArgs } from 'node:util';
import { CHIME_SIGNALS, type ChimeSignal, type SpeakResponse } from '@vox/protocol';
import { call } from '../client.js';
import { resolveConfig } from '../config.js';
import { EXIT, type CliContext } from '../context.js';
import { reportThrown, reportWireError } from '../report.js';
import { sessionLabel } from '../session.js';

const USAGE = `Usage: vox chime SIGNAL [--wait] [--json]

SIGNAL is one of: ${CHIME_SIGNALS.join(', ')}. Each signal plays at most once
in 5 seconds; a repeat is reported as deduped.
`;

export async function run(ctx: CliContext): Promise<number> {
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: ctx.argv,
      allowPositionals: true,
      options: { wait: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    ctx.stderr.write(`vox chime: ${(err as Error).message}\n${USAGE}`);
    return EXIT.USAGE;
  }
  if (values.help) {
    ctx.stdout.write(USAGE);
    return EXIT.OK;
  }
  const signal = positionals[0];
  if (!signal || !(CHIME_SIGNALS as readonly string[]).includes(signal)) {
    ctx.stderr.write(`vox chime: unknown signal ${JSON.stringify(signal ?? '')}; use one of ${CHIME_SIGNALS.join(', ')}\n`);
    return EXIT.USAGE;
  }
  try {
    const config = await resolveConfig(ctx.cwd);
    const body = { signal: signal as ChimeSignal, session: sessionLabel(config.projectName, ctx.env), ...(values.wait ? { wait: true } : {}) };
    const reply = await call<SpeakResponse>(ctx.env, 'POST', '/v1/chime', body, values.wait ? 60_000 : 10_000);
    if (reply.status >= 400) return reportWireError(ctx, 'chime', reply.status, reply.body);
    if (values.json) ctx.stdout.write(`${JSON.stringify(reply.body)}\n`);
    else if (reply.body.status === 'deduped') ctx.stderr.write(`vox chime: ${signal} deduped (played within the last 5 s)\n`);
    return reply.body.status === 'failed' ? EXIT.PLAYBACK_FAILED : EXIT.OK;
  } catch (err) {
    return reportThrown(ctx, 'chime', err);
  }
}
