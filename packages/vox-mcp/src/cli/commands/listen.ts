/** `vox listen`: record the microphone through voxd until the user stops speaking; print the transcript. */
import { copyFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { printable, type ListenRequest, type ListenResponse, type TranscriberUsed } from '@vox/protocol';
import { defineCommand } from '../command.js';
import { EXIT, unlessAborted } from '../context.js';
import { exitForStatus } from '../report.js';

const USAGE = `Usage: vox listen [--max N] [--silence MS] [--wait MS] [--keep-floor] [--floor TOKEN] [--out FILE.wav] [--json]
       vox listen --release TOKEN

Listens through voxd's microphone (a prompt chime, then speak) until you stop
speaking, and prints what you said. voxd waits for the speech playing to end
first, and nothing it says meanwhile is recorded.
  --max N              longest recording, in seconds (1 to 300; default 30)
  --silence MS         silence after speech that ends it, in ms (200 to 10000; default 1200)
  --start-timeout MS   give up when nothing is said for this long, in ms (default 8000)
  --language CODE      the language spoken, for the transcriber (e.g. en)
  --out FILE.wav       also save the recording (16 kHz mono WAV) there
  --no-prompt          no chime when listening starts
  --interrupt          cut the speech playing now instead of waiting for it
  --wait MS            queue this long for the microphone when another listen
                       holds it (0 to 300000; default 60000; 0 refuses at once)
  --keep-floor         keep the microphone for a follow-up turn: its token is
                       printed on stderr (--json: "floor"); nobody else gets it
                       until it is used, released, or idle --floor-idle ms
  --floor-idle MS      a kept floor's idle expiry (1000 to 60000; default 10000)
  --floor TOKEN        the follow-up turn of a kept floor: goes first
  --barge-in           push-to-talk: cut the speech playing, go to the head of
                       the queue and take a floor another session keeps
  --release TOKEN      hand a kept floor on at once, without listening
  --json               print voxd's response
  -h, --help           show this help

The transcript goes to stdout; which transcriber made it (the local model
or the server) to stderr. With no transcriber set in voxd, the recording is
kept and its path printed on stderr, with how to set one. "vox stop" ends a
listen; "vox status" says which transcriber a listen would use.
Exit codes: 0 listened (also when nothing was said); 2 bad usage;
3 voxd unreachable, or the recorder or transcriber failed; 4 refused (an
option out of range, the microphone still taken after --wait).
`;

/** voxd's field names back to this command's flags, for its messages. */
const FLAG_OF: Record<string, string> = {
  maxSeconds: '--max',
  silenceMs: '--silence',
  startTimeoutMs: '--start-timeout',
  language: '--language',
  waitMs: '--wait',
  floorIdleMs: '--floor-idle',
  floorToken: '--floor',
  token: '--release',
};

export const command = defineCommand({
  name: 'listen',
  usage: USAGE,
  flags: {
    // No bounds here: voxd checks them and names the flag (FLAG_OF), exit 4.
    max: { type: 'number' },
    silence: { type: 'duration', unit: 'ms' },
    'start-timeout': { type: 'duration', unit: 'ms' },
    language: { type: 'string' },
    out: { type: 'string' },
    'no-prompt': { type: 'boolean' },
    interrupt: { type: 'boolean' },
    wait: { type: 'duration', unit: 'ms' },
    'keep-floor': { type: 'boolean' },
    'floor-idle': { type: 'duration', unit: 'ms' },
    floor: { type: 'string' },
    'barge-in': { type: 'boolean' },
    release: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ ctx, flags }) {
    const { listen, listenFailure, releaseFloor } = await import('../../client/listening.js');
    if (flags.release !== undefined) {
      const reply = await releaseFloor(ctx.env, flags.release);
      if (reply.status !== 200) {
        ctx.stderr.write(
          `vox listen: ${listenFailure(reply.status, reply.body).replace('field "token"', '--release (field "token")')}\n`,
        );
        return exitForStatus(reply.status);
      }
      if (flags.json) ctx.stdout.write(`${JSON.stringify(reply.body)}\n`);
      else
        ctx.stderr.write(
          reply.body.released
            ? 'vox listen: floor handed on\n'
            : 'vox listen: that floor is not kept any more (used, released or idle); nothing to hand on\n',
        );
      return EXIT.OK;
    }
    const body: ListenRequest = {};
    if (flags.max !== undefined) body.maxSeconds = flags.max;
    if (flags.silence !== undefined) body.silenceMs = flags.silence;
    if (flags['start-timeout'] !== undefined) body.startTimeoutMs = flags['start-timeout'];
    if (flags.language !== undefined) body.language = flags.language;
    if (flags['no-prompt']) body.prompt = false;
    if (flags.interrupt) body.interrupt = true;
    if (flags.wait !== undefined) body.waitMs = flags.wait;
    if (flags['keep-floor']) body.keepFloor = true;
    if (flags['floor-idle'] !== undefined) body.floorIdleMs = flags['floor-idle'];
    if (flags.floor !== undefined) body.floorToken = flags.floor;
    if (flags['barge-in']) body.bargeIn = true;
    if (flags.out !== undefined) body.keepAudio = true;
    const { projectNameFor } = await import('../../project/config.js');
    const { sessionLabel } = await import('../../project/session.js');
    body.session = sessionLabel(projectNameFor(ctx.cwd), ctx.env);
    // A signal hangs up the listen (voxd releases the microphone) and ends it, exit 0.
    const signal = ctx.takeSignals?.();
    let reply;
    try {
      reply = await unlessAborted(listen(ctx.env, body, signal), signal);
    } catch (err) {
      if (!signal?.aborted) throw err;
      ctx.stderr.write('vox listen: stopped by a signal; nothing transcribed\n');
      return EXIT.OK;
    }
    if (reply.status !== 200) {
      let line = listenFailure(reply.status, reply.body);
      for (const [field, flag] of Object.entries(FLAG_OF))
        line = line.replace(`field "${field}"`, `${flag} (field "${field}")`);
      ctx.stderr.write(`vox listen: ${line}\n`);
      return exitForStatus(reply.status === 409 ? 400 : reply.status);
    }
    const r = reply.body as ListenResponse;
    if (flags.out !== undefined && r.audioPath) {
      const out = resolve(ctx.cwd, flags.out);
      try {
        copyFileSync(r.audioPath, out);
      } catch (err) {
        ctx.stderr.write(
          `vox listen: cannot write ${out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; the recording is at ${r.audioPath}\n`,
        );
        return EXIT.INTERNAL;
      }
    }
    if (flags.json) ctx.stdout.write(`${JSON.stringify(r)}\n`);
    else if (r.text) ctx.stdout.write(`${r.text}\n`);
    // Which one transcribed (a local model, or the server at its URL): on stderr, so stdout stays the words alone.
    const by = (r as ListenResponse & TranscriberUsed).transcriber;
    if (!flags.json && r.transcribed && by)
      ctx.stderr.write(
        `vox listen: transcribed by ${printable(by)}${r.transcribeMs !== undefined ? ` in ${r.transcribeMs} ms` : ''}\n`,
      );
    if (!flags.json && r.floor)
      ctx.stderr.write(
        `vox listen: floor kept for ${r.floor.idleMs / 1000} s idle: --floor ${r.floor.token} (or --release ${r.floor.token})\n`,
      );
    if (!flags.json && !r.transcribed)
      ctx.stderr.write(
        `vox listen: ${r.reason ?? 'nothing was transcribed'}${r.audioPath && flags.out === undefined ? `. The recording: ${r.audioPath}` : ''}\n`,
      );
    return EXIT.OK;
  },
});
export const run = command.run;
