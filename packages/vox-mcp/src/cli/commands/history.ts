/** `vox history [-n N] [--session LABEL] [--json]`: what voxd said lately, and what you missed (docs/cli.md). */
import { printable, type HistoryResponse } from '@vox/protocol';
import { call } from '../../client/call.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../context.js';
import { reportWireError } from '../report.js';

const USAGE = `Usage: vox history [-n N] [--session LABEL] [--json]

Lists recent utterances, newest first, one a line: its number for
"vox replay" (when it can be played again), the time, the session, how it
ended, and its text; "missed" marks what the next "vox recap" says.
voxd keeps the last 2,000 across restarts (VOX_HOME/recall.jsonl).
  -n, --lines N    how many (default 20, at most 500)
  --session LABEL  only this session's (e.g. api#9a1b2c)
  --json           print voxd's response
  -h, --help       show this help
`;

export const command = defineCommand({
  name: 'history',
  usage: USAGE,
  flags: {
    lines: { type: 'number', short: 'n', min: 1, max: 500, integer: true },
    session: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ ctx, flags }) {
    const query = new URLSearchParams({ limit: String(flags.lines ?? 20) });
    if (flags.session) query.set('session', flags.session);
    const reply = await call<HistoryResponse>({ ...ctx.env, VOX_NO_AUTOSTART: '1' }, 'GET', `/v1/history?${query}`);
    if (reply.status !== 200) return reportWireError(ctx, 'history', reply.status, reply.body);
    if (flags.json) {
      ctx.stdout.write(`${JSON.stringify(reply.body)}\n`);
      return EXIT.OK;
    }
    for (const e of reply.body.entries) {
      const time = new Date(e.at).toLocaleTimeString([], { hour12: false });
      const outcome = e.missed ? `${e.outcome}, missed` : e.outcome;
      ctx.stdout.write(
        `${String(e.replay ?? '-').padStart(3)}  ${time}  ${printable(e.session ?? '-')}  ${outcome}  ${printable(e.text)}\n`,
      );
    }
    if (reply.body.entries.length === 0) ctx.stdout.write('nothing said yet\n');
    ctx.stdout.write(`${reply.body.missed} missed since the last recap\n`);
    return EXIT.OK;
  },
});
export const run = command.run;
