/** `vox focus [LABEL]`: the session the person is in, for voxd's attention (docs/attention.md). */
import type { AttentionStatus } from '@vox/protocol';
import { call } from '../../client/call.js';
import { defineCommand } from '../command.js';
import { EXIT } from '../context.js';
import { reportWireError } from '../report.js';
import { attentionLines } from './status.js';

const USAGE = `Usage: vox focus [LABEL] [--json]

Names the session you are in: with the daemon setting "attention: focus",
it speaks in full and the others speak only when they need you (a
permission, a question, a failure); the rest is held for a short digest.
LABEL is a session label (api#9a1b2c) or a project's name (api: every
session of it). A prompt typed in a session, a voice answer, "vox talk"
and a session's start move the focus too. Without LABEL, prints the focus,
the attention mode and what is held per session.
  --json       print voxd's answer
  -h, --help   show this help
`;

export const command = defineCommand({
  name: 'focus',
  usage: USAGE,
  flags: { json: { type: 'boolean' } },
  maxArgs: 1,
  async run({ ctx, flags, args }) {
    const label = args[0];
    const reply = label
      ? await call<AttentionStatus>(ctx.env, 'POST', '/v1/focus', { session: label, reason: 'named' })
      : await call<AttentionStatus>(ctx.env, 'GET', '/v1/focus');
    if (reply.status >= 300) return reportWireError(ctx, 'focus', reply.status, reply.body);
    if (flags.json) ctx.stdout.write(`${JSON.stringify(reply.body)}\n`);
    else ctx.stdout.write(`${attentionLines(reply.body).join('\n')}\n`);
    return EXIT.OK;
  },
});
export const run = command.run;
