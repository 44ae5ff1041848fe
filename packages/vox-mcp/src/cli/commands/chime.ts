/** `vox chime SIGNAL`: play a chime (done, prompt, error, attention). */
import { CHIME_SIGNALS, type SpeakResponse } from '@vox/protocol';
import { call } from '../../client/call.js';
import { defineCommand, pickAction } from '../command.js';
import { resolveConfig } from '../../project/config.js';
import { EXIT, type CliContext } from '../context.js';
import { reportWireError } from '../report.js';
import { sessionLabel } from '../../project/session.js';

const USAGE = `Usage: vox chime SIGNAL [--wait] [--json]

SIGNAL is one of: ${CHIME_SIGNALS.join(', ')}. Each signal plays at most once
in 5 seconds; a repeat is reported as deduped.
  --wait       return after playback; exit 5 if it failed
  --json       print voxd's response
  -h, --help   show this help
`;

export const command = defineCommand({
  name: 'chime',
  usage: USAGE,
  flags: { wait: { type: 'boolean' }, json: { type: 'boolean' } },
  maxArgs: 1,
  async run({ ctx, flags: values, args: positionals }) {
    const signal = pickAction(positionals, CHIME_SIGNALS, 'signal');
    const config = await resolveConfig(ctx.cwd);
    const body = { signal, session: sessionLabel(config.projectName, ctx.env), ...(values.wait ? { wait: true } : {}) };
    const reply = await call<SpeakResponse>(ctx.env, 'POST', '/v1/chime', body, values.wait ? 60_000 : 10_000);
    if (reply.status >= 400) return reportWireError(ctx, 'chime', reply.status, reply.body);
    if (values.json) ctx.stdout.write(`${JSON.stringify(reply.body)}\n`);
    else if (reply.body.status === 'deduped')
      ctx.stderr.write(`vox chime: ${signal} deduped (played within the last 5 s)\n`);
    return reply.body.status === 'failed' ? EXIT.PLAYBACK_FAILED : EXIT.OK;
  },
});
export const run = command.run;
