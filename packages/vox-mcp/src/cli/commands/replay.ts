/** `vox replay [N] [--session LABEL]`: a recent utterance again, from voxd's cache (docs/cli.md). */
import type { ReplayRequest, ReplayResponse } from '@vox/protocol';
import { call } from '../../client/call.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../context.js';
import { reportWireError } from '../report.js';
import { UsageError } from '../usage.js';

const USAGE = `Usage: vox replay [N] [--session LABEL] [--wait] [--json]

Plays a recent utterance again, the audio voxd cached when it was said: it
is not synthesized again, so it sounds exactly as it did. N counts back over
what was played (1, the default, is the last; "vox history" shows each
one's number); it fails when that audio is no longer in the cache.
  --session LABEL  count only this session's utterances (e.g. api#9a1b2c)
  --wait           return once it has been played
  --json           print voxd's response
  -h, --help       show this help
`;

export const command = defineCommand({
  name: 'replay',
  usage: USAGE,
  flags: { session: { type: 'string' }, wait: { type: 'boolean' }, json: { type: 'boolean' } },
  maxArgs: 1,
  async run({ ctx, flags, args }) {
    const [raw] = args;
    if (raw !== undefined && !/^[1-9][0-9]{0,2}$|^1000$/.test(raw))
      throw new UsageError(`vox replay: N must be a whole number from 1 to 1000, not ${JSON.stringify(raw)}`);
    const body: ReplayRequest = {
      ...(raw !== undefined ? { n: Number(raw) } : {}),
      ...(flags.session ? { session: flags.session } : {}),
      ...(flags.wait ? { wait: true } : {}),
    };
    const reply = await call<ReplayResponse>(ctx.env, 'POST', '/v1/replay', body);
    if (reply.status >= 300) return reportWireError(ctx, 'replay', reply.status, reply.body);
    const r = reply.body;
    if (flags.json) ctx.stdout.write(`${JSON.stringify(r)}\n`);
    else ctx.stdout.write(`replay of ${r.of}: ${r.status}${r.reason ? ` (${r.reason})` : ''}\n`);
    return r.status === 'failed' ? EXIT.PLAYBACK_FAILED : EXIT.OK;
  },
});
export const run = command.run;
