/** `vox recap`: voxd says what you missed since the last recap (docs/cli.md). */
import type { RecapResponse } from '@vox/protocol';
import { call } from '../../client/call.js';
import { defineCommand } from '../command.js';
import { EXIT, type CliContext } from '../context.js';
import { reportWireError } from '../report.js';

const USAGE = `Usage: vox recap [--wait] [--json]

Says what you missed since the last recap: speech that failed, that the
queue dropped or cut for more important speech, or that expired before it
started, grouped by session, the newest last; the ten newest are said and the
rest counted ("And 12 more."). A second recap right after says "Nothing new
since the last recap." Speech you stopped, replaced or repeated is not
missed. voxd keeps this across restarts (VOX_HOME/recall.jsonl).
  --wait           return once the recap has been said
  --json           print voxd's response
  -h, --help       show this help
`;

export const command = defineCommand({
  name: 'recap',
  usage: USAGE,
  flags: { wait: { type: 'boolean' }, json: { type: 'boolean' } },
  run: ({ ctx, flags }) => recap(ctx, 'recap', { wait: flags.wait === true, json: flags.json === true }),
});

/** Asks voxd for the recap and says what it covers; `vox talk "what did I miss"` runs it too. */
export async function recap(ctx: CliContext, name: string, o: { wait: boolean; json: boolean }): Promise<number> {
  const reply = await call<RecapResponse>(ctx.env, 'POST', '/v1/recap', o.wait ? { wait: true } : {});
  if (reply.status >= 300) return reportWireError(ctx, name, reply.status, reply.body);
  const r = reply.body;
  if (o.json) ctx.stdout.write(`${JSON.stringify(r)}\n`);
  else
    ctx.stdout.write(
      r.items === 0
        ? `nothing new since the last recap (${r.status})\n`
        : `recap of ${r.items} missed from ${r.sessions} session${r.sessions === 1 ? '' : 's'}: ${r.status}\n`,
    );
  return r.status === 'failed' ? EXIT.PLAYBACK_FAILED : EXIT.OK;
}
export const run = command.run;
