/** `vox stop [--all | --session LABEL | --id ID]`: stop speech. Default: the utterance playing now. */
import type { StopRequest, StopResponse } from '@vox/protocol';
import { call } from '../../client/call.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../context.js';
import { daemonDown } from '../daemon-down.js';
import { reportWireError } from '../report.js';

const USAGE = `Usage: vox stop [--all | --session LABEL | --id ID] [--json]

Stops speech. With no option, cuts the utterance playing now; the queue goes on.
  --all            also clear everything queued
  --session LABEL  stop one session's speech (e.g. shop#3c07f0)
  --id ID          stop one request
  --json           print voxd's response
  -h, --help       show this help
`;

export const command = defineCommand({
  name: 'stop',
  usage: USAGE,
  flags: { all: { type: 'boolean' }, session: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean' } },
  async run({ ctx, flags: values }) {
    const body: StopRequest = values.all
      ? { scope: 'all' }
      : values.session
        ? { scope: 'session', session: values.session }
        : values.id
          ? { scope: 'id', id: values.id }
          : { scope: 'current' };
    // Stopping never starts voxd; if it is down, say so in the user's terms (daemon-down.ts).
    const reply = await call<StopResponse>({ ...ctx.env, VOX_NO_AUTOSTART: '1' }, 'POST', '/v1/stop', body).catch(
      (err: unknown) => {
        throw daemonDown(err, 'stop', ctx.env);
      },
    );
    if (reply.status !== 200) return reportWireError(ctx, 'stop', reply.status, reply.body);
    if (values.json) ctx.stdout.write(`${JSON.stringify(reply.body)}\n`);
    else
      ctx.stdout.write(
        reply.body.stopped.length ? `stopped ${reply.body.stopped.join(', ')}\n` : 'nothing was playing\n',
      );
    return EXIT.OK;
  },
});
export const run = command.run;
