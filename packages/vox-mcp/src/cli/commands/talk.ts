/** `vox talk`: say something to one Claude Code session (its `vox mcp`) through voxd, by voice or as text. */
import { printable, printableJson } from '@vox/protocol';
import type { ListenRequest, ListenResponse, TalkResponse, WireError } from '@vox/protocol';
import { defineCommand } from '../command.js';
import { EXIT } from '../context.js';
import { exitForStatus } from '../report.js';

const USAGE = `Usage: vox talk [SESSION] [TEXT]

Sends TEXT to a session's vox mcp, which hands it to Claude Code as a channel
message (and keeps it for the session's next listen or converse). Without
TEXT it cuts the speech playing and listens once (push-to-talk): say the
session's label first, "api: run the tests". An explicit SESSION wins over a
label said or typed first. A label is the session's project name, or its full
label (project#id) when two sessions share a project; "vox talk" lists the live
ones when it cannot find yours. "What did I miss?" (or "what have I missed"),
said or typed alone with no SESSION, runs vox recap instead.
  --json       print voxd's answer
  -h, --help   show this help

Exit codes: 0 delivered, to a session started with vox in its channel list;
2 bad usage, or no session named; 3 voxd unreachable or the listen failed;
4 no such live session (the live labels are listed); 8 held for the session,
but its Claude Code will not show it, or vox cannot tell that it will (the
reason is on stderr).
`;

/** Claude Code answers no notification: vox knows only what the session's command line says (mcp/channel-gate.ts). */
const GATE_NOTE =
  "Claude Code also needs the channels research preview on for the account and a first-party provider, which vox cannot see; claude --debug logs 'Channel notifications skipped: <reason>' when a gate refuses";

export const command = defineCommand({
  name: 'talk',
  usage: USAGE,
  maxArgs: 2,
  flags: { json: { type: 'boolean' } },
  async run({ ctx, flags, args }) {
    const { parseAddress } = await import('../../talk/address.js');
    const { isRecapPhrase } = await import('../../talk/recap-phrase.js');
    const recap = async () =>
      (await import('./recap.js')).recap(ctx, 'talk', { wait: false, json: flags.json === true });
    const { call } = await import('../../client/call.js');
    let session: string | undefined = args.length === 2 ? args[0] : undefined;
    let text: string | undefined = args.length === 2 ? args[1] : args[0];
    // One word alone is a SESSION to listen for; words that name none are refused below.
    if (args.length === 1 && !parseAddress(args[0]!) && !/\s/.test(args[0]!)) [session, text] = [args[0], undefined];
    if (text === undefined) {
      // Push-to-talk: barge-in cuts the speech playing and takes the microphone first.
      const body: ListenRequest = { bargeIn: true, session: 'vox-talk' };
      const reply = await call<ListenResponse | WireError>(ctx.env, 'POST', '/v1/listen', body, 200_000);
      const { listenFailure } = await import('../../client/listening.js');
      if (reply.status !== 200) {
        ctx.stderr.write(`vox talk: ${printable(listenFailure(reply.status, reply.body))}\n`);
        return exitForStatus(reply.status === 409 ? 400 : reply.status);
      }
      const heard = reply.body as ListenResponse;
      if (!heard.text.trim()) {
        ctx.stderr.write(
          `vox talk: nothing was heard${heard.reason ? ` (${printable(heard.reason)})` : ''}; nothing sent\n`,
        );
        return EXIT.REJECTED;
      }
      text = heard.text;
      if (session === undefined && isRecapPhrase(text)) return recap();
    } else if (session === undefined && isRecapPhrase(text)) {
      // The recap is asked for, not a session: it speaks what was missed (vox recap).
      return recap();
    } else {
      // Typed: still cut the speech playing at once, as a press of the key does.
      await call(ctx.env, 'POST', '/v1/stop', { scope: 'current' });
    }
    const addressed = parseAddress(text);
    if (session === undefined) {
      if (!addressed) {
        ctx.stderr.write(
          `vox talk: "${printable(text.slice(0, 80))}" names no session; say its label first ("api: run the tests") or give SESSION\n`,
        );
        return EXIT.USAGE;
      }
      ({ session, text } = addressed);
    }
    const reply = await call<TalkResponse | WireError>(ctx.env, 'POST', '/v1/talk', { session, text: text.trim() });
    if (reply.status !== 200) {
      const e = reply.body as WireError;
      // Everything from voxd is escaped: a live label is another program's text.
      ctx.stderr.write(
        `vox talk: ${printable(`${e.code ?? `HTTP ${reply.status}`}: ${e.message ?? 'voxd refused the text'}`)}\n`,
      );
      return exitForStatus(reply.status);
    }
    const r = reply.body as TalkResponse;
    const label = printable(String(r.delivered));
    if (flags.json) ctx.stdout.write(`${printableJson(JSON.stringify(r))}\n`);
    if (!r.channel?.open) {
      // Held all the same: the session's next listen or converse returns it.
      const why = r.channel
        ? printable(r.channel.reason)
        : "the session's vox mcp is older than vox talk's gate check, so vox cannot tell whether Claude Code shows channel messages";
      ctx.stderr.write(
        `vox talk: ${label} will not show this now: ${why}. The text is held for its next listen or converse; start Claude Code with --dangerously-load-development-channels plugin:vox@vox (or server:NAME for your own vox server) to have it shown (docs/talk-back.md)\n`,
      );
      return EXIT.NOT_SHOWN;
    }
    if (!flags.json) ctx.stdout.write(`delivered to ${label}\n`);
    ctx.stderr.write(`vox talk: ${printable(r.channel.reason)}; ${GATE_NOTE}\n`);
    return EXIT.OK;
  },
});
export const run = command.run;
