/**
 * `vox doctor`'s checks: each looks at one part of the installation and says
 * `ok`, `warn` or `fail`, with a fix for the last two.
 *
 * Design notes:
 * - `fail` means speech will not work as set up: Node too old, no audio output
 *   at all where one is needed, voxd refusing the token or reporting a broken
 *   sink, a token file others can read, an invalid project config, voxd's
 *   engine missing, hooks that call an MCP server no session has. `warn` means
 *   something is off but speech still comes out: voxd not running while
 *   clients may start it, versions differ, neither the plugin nor the hooks,
 *   both of them (the doubled set-up), a chosen engine not ready (voxd falls
 *   back to the embedded one), voice input that would fail.
 * - The client never imports daemon code: engines.ts says how it sees the
 *   engines (voxd reports its default engine's readiness itself, and that line
 *   comes from voxd); the audio outputs are probed the way voxd does it, in
 *   children (probes.ts, audio.ts).
 * - voxd's settings are read from its settings file, as every voxd reads them;
 *   fixes name "vox daemon config set ...", never a VOXD_* variable that an
 *   auto-started voxd ignores.
 * - Every probe is injectable, so tests run the checks without spawning.
 *
 * This module runs the checks in order; check.ts holds the types and the
 * printing, and one module per group: daemon, engines, audio, listen, project,
 * claude (the plugin, the hooks, the MCP servers, the vox mod), remote (a linked host).
 * - Where it runs decides what applies: on a host linked with `vox remote`,
 *   the link, the other host's voxd and the link's token, and none of the
 *   local audio, engine, voice-input, settings or service checks; without
 *   Claude Code, its checks are `skip`, so a clean install can be all ok.
 */
import { VERSION } from '@vox/protocol';
import type { Check, DaemonView, DoctorOptions } from './check.js';
import { audioChecks } from './audio.js';
import { daemonChecks, settingsCheck, tokenCheck, viewDaemon } from './daemon.js';
import { engineChecks } from './engines.js';
import { hooksCheck, mcpServerChecks } from './claude.js';
import { modCheck } from './claude-mod.js';
import { pluginState } from '../claude/plugin-state.js';
import { microphoneCheck, recognizerCheck, recorderCheck, transcriberCheck, vadCheck } from './listen.js';
import { quietChecks } from './quiet.js';
import {
  captureDevices,
  embeddedEngine,
  probeAudioIo,
  probePlayer,
  probeSpeaker,
  probeTranscriber,
  sherpaModule,
  which,
} from './probes.js';
import { configCheck } from './project.js';
import { linkTokenCheck, remoteChecks } from './remote.js';
import { linkState } from '../remote/link-state.js';
import { findClaudeCode, type ClaudeCode } from '../claude/claude-code.js';

/** The Node lines vox supports and CI tests (scripts/ci/node-lines, engines.node); a test keeps them in step. */
export const NODE_LINES = [22, 24, 26] as const;

function nodeCheck(version: string): Check {
  // 20 still runs but is end of life; an odd line or a newer one is untested.
  const major = Number(version.split('.')[0]);
  const lines = NODE_LINES.join(', ');
  const fix = `install Node.js ${lines} (e.g. "nvm install 24"), then run "vox hooks install" and "vox daemon install" again: they record node's path`;
  if ((NODE_LINES as readonly number[]).includes(major))
    return { name: 'node', level: 'ok', detail: `v${version} (vox supports Node.js ${lines})` };
  if (major > NODE_LINES[0])
    return {
      name: 'node',
      level: 'warn',
      detail: `v${version} is not a line vox is tested on (Node.js ${lines}); it will probably work`,
      fix,
    };
  if (major >= 20)
    return {
      name: 'node',
      level: 'warn',
      detail: `v${version} is end of life and not supported; vox supports Node.js ${lines}`,
      fix,
    };
  return { name: 'node', level: 'fail', detail: `v${version} is too old; vox needs Node.js ${lines}`, fix };
}

function claudeCodeCheck(found: ClaudeCode | undefined): Check {
  if (!found)
    return {
      name: 'claude code',
      level: 'skip',
      detail: 'Claude Code is not installed (no claude on PATH, no VOX_CLAUDE_CODE): its checks are skipped',
    };
  if (!found.version)
    return {
      name: 'claude code',
      level: 'warn',
      detail: `${found.path} (from ${found.from}), but ${found.versionError}`,
      fix: `run "${found.path} --version" yourself to see what it waits for`,
    };
  return { name: 'claude code', level: 'ok', detail: `${found.version} at ${found.path} (from ${found.from})` };
}

/** The Claude Code checks: the binary, then the plugin, the hooks and the MCP servers, or skips without it. */
function claudeChecks(where: { env: NodeJS.ProcessEnv; cwd: string }, found: ClaudeCode | undefined): Check[] {
  if (!found) {
    const detail = 'Claude Code is not installed';
    return [
      claudeCodeCheck(found),
      { name: 'hooks', level: 'skip', detail },
      { name: 'mcp server', level: 'skip', detail },
      modCheck(found, pluginState(where), where.env),
    ];
  }
  const plugin = pluginState(where);
  return [
    claudeCodeCheck(found),
    hooksCheck(where, plugin),
    ...mcpServerChecks(where, plugin),
    modCheck(found, plugin, where.env),
  ];
}

async function defaultServiceInstalled(env: NodeJS.ProcessEnv): Promise<boolean> {
  const { serviceInstalled } = await import('../daemon/service.js');
  return serviceInstalled({ env });
}

/** Every check, in the order `vox doctor` prints them. */
export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const env = options.env;
  const platform = options.platform ?? process.platform;
  const probe = {
    env,
    platform,
    which: options.which ?? which,
    probeSpeaker: options.probeSpeaker ?? probeSpeaker,
    probePlayer: options.probePlayer ?? probePlayer,
    probeAudioIo: options.probeAudioIo ?? probeAudioIo,
    captureDevices: options.captureDevices ?? captureDevices,
    embeddedEngine: options.embeddedEngine ?? (() => embeddedEngine(env)),
    sherpaModule: options.sherpaModule ?? (() => sherpaModule(env)),
  };
  const guard = async (name: string, f: () => Promise<Check[]> | Check[]): Promise<Check[]> => {
    try {
      return await f();
    } catch (err) {
      return [
        {
          name,
          level: 'fail',
          detail: `the check itself failed: ${(err as Error).message}`,
          fix: 'please report this with the output of "vox doctor --json"',
        },
      ];
    }
  };

  const view = await (options.daemon ?? viewDaemon)(env).catch((err: Error): DaemonView => ({ error: err.message }));
  const link = await linkState(env, 1500).catch(() => undefined);
  const where = { env, cwd: options.cwd };
  const claude = () => guard('hooks', () => claudeChecks(where, (options.claudeCode ?? findClaudeCode)(env)));
  const node = () => guard('node', () => [nodeCheck(options.nodeVersion ?? process.versions.node)]);
  if (link) {
    // Sound plays on the other host: its voxd, through the link, is what there is to check.
    const daemon = await guard('daemon', () => daemonChecks(env, view, options.clientVersion ?? VERSION, link.host));
    const config = await configCheck(options.cwd);
    return [
      ...(await node()),
      ...daemon,
      ...(await guard('remote link', () => remoteChecks(link))),
      ...(await guard('token', () => [linkTokenCheck(env, link, view)])),
      ...(await guard('microphone', () => [microphoneCheck(view)])),
      config.check,
      ...(await claude()),
    ];
  }
  // What every voxd reads (an auto-started one ignores the VOXD_* variables): the settings file, else the defaults.
  const { readSettingsFile, resolveSettings, settingsPath } = await import('@vox/protocol/settings');
  const file = readSettingsFile(settingsPath(env));
  const daemonSettings = resolveSettings({ env: {}, file });
  const setting = { value: daemonSettings.values.audio, fromFile: daemonSettings.sources.audio === 'file' };
  const listenSettings = {
    recorder: daemonSettings.values['listen.recorder'],
    transcriberUrl: daemonSettings.values['transcriber.url'],
    transcriberKind: daemonSettings.values['transcriber.kind'],
    vad: daemonSettings.values['listen.vad'],
  };
  const [config, audio, service, transcriber] = await Promise.all([
    configCheck(options.cwd),
    guard('audio', () => audioChecks(probe, view, setting)),
    guard('service', async () => {
      const installed = await (options.serviceInstalled ?? defaultServiceInstalled)(env);
      const kind = platform === 'darwin' ? 'launchd' : 'systemd user units';
      if (!installed)
        return [
          {
            name: 'service',
            level: 'ok' as const,
            detail: 'not installed; clients start voxd on demand ("vox daemon install" keeps it warm)',
          },
        ];
      if (view.health)
        return [{ name: 'service', level: 'ok' as const, detail: `installed (${kind}) and voxd answers` }];
      // The user chose a service: one that does not run is a failure, not "ok: installed".
      return [
        {
          name: 'service',
          level: 'fail' as const,
          detail: `installed (${kind}) but not running: nothing answers${view.where ? ` at ${view.where}` : ''}`,
          fix:
            platform === 'darwin'
              ? 'start it with "vox daemon start" (launchctl kickstart); if it stops again, see VOX_HOME/logs/voxd.stderr.log'
              : 'start it with "vox daemon start" (systemctl --user start voxd.socket voxd.service); if it stops again, see "journalctl --user -u voxd"; without a working user manager, "vox daemon uninstall" and let clients start voxd',
        },
      ];
    }),
    guard('transcriber', async () => [
      await transcriberCheck(env, listenSettings, options.probeTranscriber ?? probeTranscriber),
    ]),
  ]);

  const settings = await guard('daemon settings', async () => [await settingsCheck(env)]);
  const selected = new Set<string>();
  const chosen = config.config?.values.engine;
  if (chosen && chosen !== 'auto') selected.add(chosen);
  if (env.VOXD_ENGINE && env.VOXD_ENGINE !== 'auto') selected.add(env.VOXD_ENGINE);

  const daemon = await guard('daemon', () => daemonChecks(env, view, options.clientVersion ?? VERSION));
  const isEngine = (c: Check) => c.name.startsWith('engine');
  return [
    ...(await node()),
    ...daemon.filter((c) => !isEngine(c)),
    ...(await guard('token', () => [tokenCheck(env, view, platform)])),
    ...daemon.filter(isEngine),
    ...(await guard('engines', () => engineChecks(probe, selected))),
    ...audio,
    ...(await guard('recorder', async () => [await recorderCheck(probe, listenSettings)])),
    ...transcriber,
    ...(await guard('recognizer', () => [recognizerCheck(env, listenSettings), vadCheck(env, listenSettings)])),
    ...(await guard('microphone', () => [microphoneCheck(view)])),
    ...(await guard('quiet', () => quietChecks(view, env, platform, probe.which))),
    config.check,
    ...(await claude()),
    ...settings,
    ...service,
  ];
}
