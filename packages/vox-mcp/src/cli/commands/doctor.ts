/**
 * `vox doctor [--json]`: checks the installation, one line per check
 * (doctor.ts has the checks and what counts as warn or fail).
 */
import { EXIT, type CliContext } from '../context.js';
import { defineCommand } from '../command.js';
import { formatChecks, healthy } from '../../doctor/check.js';
import { runDoctor } from '../../doctor/doctor.js';

export const DOCTOR_USAGE = `Usage: vox doctor [--json]

Checks the installation, one line per check:
  ok|warn|fail|skip  <check>: <detail>
    fix: <what to do>            (under warn and fail)

Checks: Node.js version; voxd (running, its version against this client's,
its default engine); the token file (mode 600, accepted by voxd); each engine
as this shell sees it (the embedded espeak, espeak-ng and say on PATH, cloud
keys in the environment or VOX_HOME/keys.env, never printed); the audio
output (voxd's sink; audio-io and its ALSA library, libasound.so.2, opening
the default device; the speaker module and the player commands, each probed
in a child process); the recorder and a capture device for it (ALSA's cards,
the sound server's sources), the transcriber and who holds voxd's
microphone; this directory's .vox/config.md; Claude Code: its binary and
version (VOX_CLAUDE_CODE, else claude on PATH; without it, its checks say
skip), the vox plugin against vox's hooks (user, project and local settings;
both is the doubled set-up), the MCP server each mcp_tool hook calls,
registered, and whether the vox mod loads (Claude Code 2.1.287 and later,
the plugin enabled, mods not off by policy) or is skipped, and why; voxd's
settings file; the voxd service (installed but not
running is a failure). Fixes name "vox daemon config set KEY VALUE": a voxd
that a client starts reads its settings file, not VOXD_* variables; they
name only commands on PATH, else the package that brings one.
On a host linked with "vox remote": the link, the other host's voxd through
it (version, token) and the spool, and none of the local audio, engine,
voice-input, settings or service checks: sound plays on the other host.

Does not start voxd.

Options:
  --json       print {"ok": boolean, "checks": [{name, level, detail, fix?}]}
  -h, --help   show this help

Exit codes: 0 when no check fails (warnings allowed); 1 when one fails;
2 bad usage.
`;

export const command = defineCommand({
  name: 'doctor',
  usage: DOCTOR_USAGE,
  flags: { json: { type: 'boolean' } },
  async run({ ctx, flags: values }) {
    const checks = await runDoctor({ env: ctx.env, cwd: ctx.cwd });
    const ok = healthy(checks);
    ctx.stdout.write(values.json ? `${JSON.stringify({ ok, checks })}\n` : formatChecks(checks));
    return ok ? EXIT.OK : EXIT.INTERNAL;
  },
});
export const run = command.run;
