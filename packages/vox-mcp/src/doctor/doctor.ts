/**
 * `vox doctor`'s checks: each looks at one part of the installation and says
 * `ok`, `warn` or `fail`, with a fix for the last two.
 *
 * Design notes:
 * - `fail` means speech will not work as set up: Node too old, no audio output
 *   at all where one is needed, voxd refusing the token or reporting a broken
 *   sink, a token file others can read, an invalid project config, voxd's
 *   engine missing. `warn` means something is off but speech still comes out:
 *   voxd not running while clients may start it, versions differ, hooks not
 *   installed, a chosen engine not ready (voxd falls back to the embedded one).
 * - The client never imports daemon code. It sees engines the way it can:
 *   cloud keys by presence (environment or VOX_HOME/keys.env, never printing a
 *   value), system engines by their binary on PATH, the embedded engine by its
 *   package being installed beside voxd. voxd's own environment may differ
 *   (a service has its own), which the details say; voxd reports its default
 *   engine's readiness itself, and that line comes from voxd.
 * - The audio device is probed the way voxd does it: `speaker` in a child
 *   process (it aborts its process when there is no sound card), then each
 *   player command with a few milliseconds of silence. When voxd is running and
 *   its device sink reports ok, the device is not probed again (a probe could
 *   collide with playback); when voxd writes to a file or discards audio, a
 *   missing device is only a warning.
 * - Every probe is injectable, so tests run the checks without spawning.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { VERSION, findExecutable, homePaths, parseKeysFile, pidAlive, voxHome, type HealthResponse, type StatusResponse } from '@vox/protocol';
import { listModels } from '@vox/protocol/models';
import { health, request, resolveEndpoint } from '../daemon/client.js';
import type { ResolvedConfig } from '../project/config-schema.js';
import { ConfigError } from '../project/config-validation.js';
import { resolveConfig } from '../project/config.js';
import { inspectHooks, settingsPath, type SettingsScope } from '../claude/hooks-settings.js';

export type CheckLevel = 'ok' | 'warn' | 'fail';

export interface Check {
  /** Short name, e.g. `daemon`, `engine openai`, `audio device`. */
  name: string;
  level: CheckLevel;
  detail: string;
  /** What to do about a warn or fail. */
  fix?: string;
}

export interface ProbeResult {
  ok: boolean;
  detail: string;
}

/** What `vox doctor` asks of voxd, gathered once. */
export interface DaemonView {
  /** Where the client looked, e.g. `127.0.0.1:8421 (from voxd.json)`; undefined when nothing says where. */
  where?: string;
  health?: HealthResponse;
  /** GET /v1/status with the client's token: the body, or the HTTP status when refused. */
  status?: StatusResponse;
  statusCode?: number;
  /** Why nothing answered. */
  error?: string;
  /** pid from voxd.json, when there is one. */
  statePid?: number;
}

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Default process.platform. */
  platform?: NodeJS.Platform;
  /** Default process.versions.node. */
  nodeVersion?: string;
  /** Default VERSION. */
  clientVersion?: string;
  /** Default: ask the voxd of `env`. */
  daemon?: (env: NodeJS.ProcessEnv) => Promise<DaemonView>;
  /** Default: run voxd's speaker child with `--probe`. */
  probeSpeaker?: (env: NodeJS.ProcessEnv) => Promise<ProbeResult>;
  /** Default: pipe 10 ms of silence into the player. */
  probePlayer?: (player: PlayerName, path: string, env: NodeJS.ProcessEnv) => Promise<ProbeResult>;
  /** Default: look in env.PATH. */
  which?: (name: string, env: NodeJS.ProcessEnv) => string | undefined;
  /** Default: the espeak-ng-emscripten package beside voxd. */
  embeddedEngine?: () => ProbeResult;
  /** Default: sherpa-onnx-node beside voxd. */
  sherpaModule?: () => ProbeResult;
  /** Default: service.ts's serviceInstalled. */
  serviceInstalled?: (env: NodeJS.ProcessEnv) => Promise<boolean>;
}

/** Player commands voxd falls back to, in its order (voxd's sinks/command.ts). */
export const PLAYERS = ['paplay', 'pw-play', 'aplay', 'afplay'] as const;
export type PlayerName = (typeof PLAYERS)[number];

const CLOUD_KEYS = [
  { engine: 'openai', key: 'OPENAI_API_KEY' },
  { engine: 'elevenlabs', key: 'ELEVENLABS_API_KEY' },
] as const;

const PROBE_TIMEOUT_MS = 5000;

/** The full path of an executable on env.PATH, looking at the file system only (the default probe). */
export function which(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return findExecutable(name, env);
}

/** Resolves a voxd file the way client.ts does: createRequire works in the ESM build and in the bundled CJS bin. */
function resolveVoxd(specifier: string): string {
  return createRequire(import.meta.url).resolve(specifier);
}

function voxdEntry(env: NodeJS.ProcessEnv): string {
  return env.VOXD_BIN || resolveVoxd('voxd/main');
}

/** Runs a child with a time limit; resolves with its exit and the tail of its stderr. Never rejects. */
function runChild(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: Buffer,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; error?: string }> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { env, stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'] });
    } catch (err) {
      resolve({ code: null, signal: null, stderr: '', error: (err as Error).message });
      return;
    }
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stderr, error: err.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
    if (input && child.stdin) {
      child.stdin.on('error', () => {});
      child.stdin.end(input);
    }
  });
}

/** The last meaningful stderr line, shortened. */
function lastLine(stderr: string): string {
  const line = stderr.trim().split('\n').filter(Boolean).pop() ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** voxd's speaker child with --probe, as voxd runs it at start. */
export async function probeSpeaker(env: NodeJS.ProcessEnv): Promise<ProbeResult> {
  let child: string;
  try {
    child = resolveVoxd('voxd/sinks/speaker-child');
  } catch (err) {
    return { ok: false, detail: `voxd's speaker probe was not found (${(err as Error).message})` };
  }
  const r = await runChild(process.execPath, [child, '--probe'], env);
  if (r.code === 0) return { ok: true, detail: 'the speaker module opened the default device' };
  if (r.error) return { ok: false, detail: r.error };
  if (r.signal === 'SIGABRT') return { ok: false, detail: 'speaker could not open the audio device (no sound card?)' };
  if (r.signal === 'SIGKILL') return { ok: false, detail: `speaker did not finish within ${PROBE_TIMEOUT_MS / 1000} s` };
  if (r.code === 3) return { ok: false, detail: 'the optional speaker module is not installed (it needs libasound2-dev to build on Linux)' };
  return { ok: false, detail: lastLine(r.stderr) || `speaker probe exited with ${r.code ?? r.signal}` };
}

function playerArgs(player: PlayerName): string[] {
  switch (player) {
    case 'paplay':
      return ['--raw', '--format=s16le', '--rate=22050', '--channels=1'];
    case 'pw-play':
      return ['--format=s16', '--rate=22050', '--channels=1', '-'];
    case 'aplay':
      return ['-q', '-t', 'raw', '-f', 'S16_LE', '-r', '22050', '-c', '1', '-'];
    case 'afplay':
      return [];
  }
}

/** Pipes 10 ms of silence into a player. afplay (macOS, files only) is trusted when present. */
export async function probePlayer(player: PlayerName, path: string, env: NodeJS.ProcessEnv): Promise<ProbeResult> {
  if (player === 'afplay') return { ok: true, detail: `${path} (not probed)` };
  const r = await runChild(path, playerArgs(player), env, Buffer.alloc(441));
  if (r.code === 0) return { ok: true, detail: `${player} played a test silence` };
  if (r.error) return { ok: false, detail: `${player} failed: ${r.error}` };
  const why = lastLine(r.stderr).replace(new RegExp(`^${player}:\\s*`), '');
  return { ok: false, detail: `${player} failed: ${why || `exit ${r.code ?? r.signal}`}` };
}

/** Whether voxd's embedded engine (espeak-ng compiled to JS) is installed beside voxd. */
export function embeddedEngine(env: NodeJS.ProcessEnv = process.env): ProbeResult {
  let entry: string;
  try {
    entry = voxdEntry(env);
  } catch (err) {
    return { ok: false, detail: `voxd is not installed beside vox (${(err as Error).message})` };
  }
  try {
    const pkg = createRequire(entry).resolve('@echogarden/espeak-ng-emscripten/package.json');
    statSync(join(dirname(pkg), 'espeak-ng.data'));
    return { ok: true, detail: 'embedded in voxd, always available' };
  } catch {
    return { ok: false, detail: 'the package @echogarden/espeak-ng-emscripten is missing beside voxd' };
  }
}

/** Whether voxd's optional sherpa-onnx-node resolves beside voxd (file lookup only: the addon loads in voxd, never here). */
export function sherpaModule(env: NodeJS.ProcessEnv = process.env): ProbeResult {
  try {
    const main = createRequire(voxdEntry(env)).resolve('sherpa-onnx-node');
    const platform = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
    createRequire(main).resolve(`sherpa-onnx-${platform}/package.json`);
    return { ok: true, detail: 'sherpa-onnx-node is installed beside voxd' };
  } catch {
    return { ok: false, detail: 'sherpa-onnx-node (an optional dependency of voxd) is not installed, or has no prebuilt package for this platform' };
  }
}

/** The engine sherpa: its module, and the voice models installed in VOX_HOME/models. */
function sherpaCheck(env: NodeJS.ProcessEnv, selected: Set<string>, module: () => ProbeResult): Check {
  const models = listModels(voxHome(env));
  const usable = models.filter((m) => m.ok).map((m) => (m.ok ? m.manifest.name : ''));
  const damaged = models.filter((m): m is Extract<typeof m, { ok: false }> => !m.ok);
  const mod = module();
  if (damaged.length) {
    const m = damaged[0]!;
    return { name: 'engine sherpa', level: 'warn', detail: `model ${m.name} is not usable: ${m.reason}`, fix: `vox voices install ${m.name} --force` };
  }
  if (usable.length && !mod.ok) {
    return { name: 'engine sherpa', level: 'warn', detail: `${usable.join(', ')} installed, but ${mod.detail}; speech uses eSpeak`, fix: 'run "npm install" in the vox checkout (sherpa-onnx-node installs with it where a prebuilt package exists)' };
  }
  if (usable.length) return { name: 'engine sherpa', level: 'ok', detail: `voice models: ${usable.join(', ')}` };
  const why = `no voice model is installed${mod.ok ? '' : `, and ${mod.detail}`}`;
  return selected.has('sherpa')
    ? { name: 'engine sherpa', level: 'warn', detail: `chosen but not ready: ${why}; speech falls back to the embedded engine`, fix: '"vox voices list" shows the models; "vox voices install NAME" installs one' }
    : { name: 'engine sherpa', level: 'ok', detail: `not set up (optional): ${why} ("vox voices install NAME")` };
}

/** What the client can learn from voxd: health (public), then status (with the token). */
export async function viewDaemon(env: NodeJS.ProcessEnv): Promise<DaemonView> {
  const view: DaemonView = {};
  let endpoint;
  try {
    endpoint = resolveEndpoint(env);
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (!endpoint) return { error: 'no VOX_HOME/voxd.json, VOXD_URL or VOXD_PORT says where voxd is' };
  view.where = `${endpoint.host}:${endpoint.port} (from ${endpoint.source})`;
  if (endpoint.source === 'voxd.json') {
    try {
      view.statePid = (JSON.parse(readFileSync(homePaths(voxHome(env)).state, 'utf8')) as { pid?: number }).pid;
    } catch {
      // gone meanwhile
    }
  }
  view.health = await health(env, 1500);
  if (!view.health) {
    view.error = 'nothing answers there';
    return view;
  }
  try {
    const reply = await request<StatusResponse>(endpoint, 'GET', '/v1/status', undefined, 3000);
    view.statusCode = reply.status;
    if (reply.status === 200) view.status = reply.body;
  } catch (err) {
    view.error = (err as Error).message;
  }
  return view;
}


function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
}

const octal = (mode: number) => mode.toString(8).padStart(3, '0');

/** Keys present in a keys.env text (names only) and the numbers of lines that are not KEY=value. */
function keyNames(text: string): { names: Set<string>; badLines: number[] } {
  const { values, badLines } = parseKeysFile(text);
  return { names: new Set(values.keys()), badLines };
}

/** The Node lines vox supports and CI tests (scripts/ci/node-lines, engines.node); a test keeps them in step. */
export const NODE_LINES = [22, 24, 26] as const;

function nodeCheck(version: string): Check {
  // 20 still runs but is end of life; an odd line or a newer one is untested.
  const major = Number(version.split('.')[0]);
  const lines = NODE_LINES.join(', ');
  const fix = `install Node.js ${lines} (e.g. "nvm install 24"), then run "vox hooks install" and "vox daemon install" again: they record node's path`;
  if ((NODE_LINES as readonly number[]).includes(major)) return { name: 'node', level: 'ok', detail: `v${version} (vox supports Node.js ${lines})` };
  if (major > NODE_LINES[0]) return { name: 'node', level: 'warn', detail: `v${version} is not a line vox is tested on (Node.js ${lines}); it will probably work`, fix };
  if (major >= 20) return { name: 'node', level: 'warn', detail: `v${version} is end of life and not supported; vox supports Node.js ${lines}`, fix };
  return { name: 'node', level: 'fail', detail: `v${version} is too old; vox needs Node.js ${lines}`, fix };
}

function daemonChecks(env: NodeJS.ProcessEnv, view: DaemonView, clientVersion: string): Check[] {
  const checks: Check[] = [];
  const autostart = env.VOX_NO_AUTOSTART !== '1';
  if (!view.health) {
    const stale = view.statePid !== undefined && !pidAlive(view.statePid) ? `; voxd.json names pid ${view.statePid}, which is not running (a stale file)` : '';
    const why = view.where ? `nothing answers at ${view.where}${stale}` : 'not running';
    checks.push({
      name: 'daemon',
      level: autostart ? 'warn' : 'fail',
      detail: autostart ? `${why}; the next vox say, hook or MCP call starts it` : `${why}, and VOX_NO_AUTOSTART=1 stops clients from starting it`,
      fix: 'start it now with "vox daemon start", or run it as a service with "vox daemon install"',
    });
    return checks;
  }
  const s = view.status;
  checks.push({
    name: 'daemon',
    level: 'ok',
    detail: `reachable at ${view.where}${s ? `, pid ${s.pid}, up ${Math.round(s.uptimeMs / 1000)} s` : ''}`,
  });
  const daemonVersion = view.health.version;
  checks.push(
    daemonVersion === clientVersion
      ? { name: 'daemon version', level: 'ok', detail: `voxd ${daemonVersion}, vox ${clientVersion}` }
      : { name: 'daemon version', level: 'warn', detail: `voxd ${daemonVersion} differs from vox ${clientVersion}`, fix: 'run "vox daemon restart" so that voxd runs the installed version' },
  );
  if (s) {
    checks.push(
      s.engine.ready
        ? { name: 'engine (voxd default)', level: 'ok', detail: `${s.engine.name} ready (as voxd reports it)` }
        : {
            name: 'engine (voxd default)',
            level: 'warn',
            detail: `${s.engine.name} is not ready: ${s.engine.reason ?? 'no reason given'}; speech falls back to the embedded engine`,
            fix: 'see the engine lines below; after adding a key or installing an engine, voxd picks it up (keys.env is re-read), or run "vox daemon restart"',
          },
    );
  }
  return checks;
}

function tokenCheck(env: NodeJS.ProcessEnv, view: DaemonView, platform: NodeJS.Platform): Check {
  const path = homePaths(voxHome(env)).token;
  const fromEnv = env.VOXD_TOKEN ? ' (VOXD_TOKEN is set and used instead)' : '';
  if (view.statusCode === 401 || view.statusCode === 403) {
    return {
      name: 'token',
      level: 'fail',
      detail: `voxd refused the token${env.VOXD_TOKEN ? ' in VOXD_TOKEN' : ` in ${path}`} (HTTP ${view.statusCode})`,
      fix: env.VOXD_TOKEN ? 'unset VOXD_TOKEN, or set it to the contents of VOX_HOME/token' : `this VOX_HOME is not the running voxd's: set VOX_HOME as voxd has it, or run "vox daemon restart"`,
    };
  }
  const mode = modeOf(path);
  if (mode === undefined) {
    if (view.health && !env.VOXD_TOKEN) {
      return { name: 'token', level: 'fail', detail: `${path} is missing while voxd runs`, fix: 'run "vox daemon restart": voxd creates the token at start' };
    }
    return { name: 'token', level: 'ok', detail: `${path} not created yet; voxd creates it (mode 600) when it starts${fromEnv}` };
  }
  if (platform !== 'win32' && (mode & 0o077) !== 0) {
    return {
      name: 'token',
      level: 'fail',
      detail: `${path} has mode ${octal(mode)}: other users can read it and make voxd speak`,
      fix: `chmod 600 "${path}"`,
    };
  }
  return { name: 'token', level: 'ok', detail: `${path}, mode ${octal(mode)}${view.status ? ', accepted by voxd' : ''}${fromEnv}` };
}

function engineChecks(opts: Required<Pick<DoctorOptions, 'env' | 'platform' | 'which' | 'embeddedEngine' | 'sherpaModule'>>, selected: Set<string>): Check[] {
  const { env, platform } = opts;
  const checks: Check[] = [];
  const note = ' (as this shell sees it; voxd reads its own environment)';
  const embedded = opts.embeddedEngine();
  checks.push(
    embedded.ok
      ? { name: 'engine espeak', level: 'ok', detail: embedded.detail }
      : { name: 'engine espeak', level: 'fail', detail: `${embedded.detail}: voxd has no engine to fall back on`, fix: 'run "npm install" in the vox checkout, then "npm run build"' },
  );

  const notReady = (name: string, why: string, fix: string): Check =>
    selected.has(name)
      ? { name: `engine ${name}`, level: 'warn', detail: `chosen but not ready: ${why}; speech falls back to the embedded engine`, fix }
      : { name: `engine ${name}`, level: 'ok', detail: `not set up (optional): ${why}` };

  const espeakNg = opts.which('espeak-ng', env);
  checks.push(
    espeakNg
      ? { name: 'engine espeak-ng', level: 'ok', detail: `${espeakNg}${note}` }
      : notReady('espeak-ng', 'espeak-ng is not on PATH', 'install it: "apt-get install espeak-ng" or "brew install espeak-ng"'),
  );
  if (platform === 'darwin') {
    const say = opts.which('say', env);
    checks.push(say ? { name: 'engine say', level: 'ok', detail: say } : notReady('say', 'say is not on PATH', 'say ships with macOS: check PATH'));
  } else {
    checks.push(
      selected.has('say')
        ? notReady('say', `macOS only (this is ${platform})`, 'choose another engine in .vox/config.md, or "auto"')
        : { name: 'engine say', level: 'ok', detail: `macOS only; not used on ${platform}` },
    );
  }

  checks.push(sherpaCheck(env, selected, opts.sherpaModule));

  const keysPath = homePaths(voxHome(env)).keys;
  let fileKeys = new Set<string>();
  let keysText: string | undefined;
  try {
    keysText = readFileSync(keysPath, 'utf8');
  } catch {
    // no keys file: fine
  }
  if (keysText !== undefined) {
    const parsed = keyNames(keysText);
    fileKeys = parsed.names;
    const mode = modeOf(keysPath);
    if (platform !== 'win32' && mode !== undefined && (mode & 0o077) !== 0) {
      checks.push({ name: 'keys file', level: 'warn', detail: `${keysPath} has mode ${octal(mode)}: other users may read your API keys`, fix: `chmod 600 "${keysPath}"` });
    } else if (parsed.badLines.length) {
      checks.push({ name: 'keys file', level: 'warn', detail: `${keysPath}: line ${parsed.badLines.join(', ')} not KEY=value; ignored`, fix: 'write one NAME=value per line' });
    } else {
      checks.push({ name: 'keys file', level: 'ok', detail: `${keysPath}, mode ${mode === undefined ? '?' : octal(mode)}` });
    }
  }
  for (const { engine, key } of CLOUD_KEYS) {
    if (env[key]?.trim()) checks.push({ name: `engine ${engine}`, level: 'ok', detail: `${key} is set in the environment${note}` });
    else if (fileKeys.has(key)) checks.push({ name: `engine ${engine}`, level: 'ok', detail: `${key} is set in ${keysPath}` });
    else checks.push(notReady(engine, `${key} is not set (environment or ${keysPath})`, `add "${key}=..." to ${keysPath} (chmod 600); voxd re-reads it`));
  }
  return checks;
}

/** Sinks that need a sound device (or sound server). */
function usesDevice(sink: string): boolean {
  return sink === 'speaker' || sink === 'audioio' || sink.startsWith('auto') || sink.startsWith('command');
}

async function audioChecks(opts: Required<Pick<DoctorOptions, 'env' | 'platform' | 'which' | 'probeSpeaker' | 'probePlayer'>>, view: DaemonView): Promise<Check[]> {
  const { env } = opts;
  const checks: Check[] = [];
  const sink = view.status?.sink;
  let needsDevice: boolean;
  let why: string;
  if (sink) {
    needsDevice = usesDevice(sink.name);
    why = `voxd plays to ${sink.name}`;
    if (!sink.ok) {
      checks.push({
        name: 'audio (voxd)',
        level: 'fail',
        detail: `${sink.name} is failing: ${[sink.detail, sink.lastError].filter(Boolean).join('; ')}`,
        fix: 'see "audio device" below; to force a player set VOXD_AUDIO=command:paplay (or aplay, pw-play) for voxd, then "vox daemon restart"',
      });
    } else {
      checks.push({ name: 'audio (voxd)', level: 'ok', detail: `${sink.name}${sink.detail ? `: ${sink.detail}` : ''}` });
      // voxd plays through the device and says it works: probing it again could collide with playback.
      if (needsDevice) return checks;
    }
  } else {
    const spec = env.VOXD_AUDIO || 'auto';
    needsDevice = usesDevice(spec);
    why = env.VOXD_AUDIO ? `VOXD_AUDIO=${spec}` : 'voxd will use audio-io, then speaker, then a player (VOXD_AUDIO unset)';
  }

  const found = PLAYERS.filter((p) => p !== 'afplay' || opts.platform === 'darwin')
    .map((p) => ({ player: p, path: opts.which(p, env) }))
    .filter((p): p is { player: PlayerName; path: string } => p.path !== undefined);
  const [speaker, ...players] = await Promise.all([opts.probeSpeaker(env), ...found.map((p) => opts.probePlayer(p.player, p.path, env))]);
  const working = found.filter((_, i) => players[i]!.ok).map((p) => p.player);
  const playerText = found.length
    ? found.map((p, i) => (players[i]!.ok ? `${p.player} works` : players[i]!.detail)).join('; ')
    : `no player command on PATH (looked for ${PLAYERS.filter((p) => p !== 'afplay' || opts.platform === 'darwin').join(', ')})`;
  if (speaker!.ok) {
    checks.push({ name: 'audio device', level: 'ok', detail: `${speaker!.detail}; ${playerText}` });
  } else if (working.length) {
    checks.push({ name: 'audio device', level: 'ok', detail: `speaker: ${speaker!.detail}; voxd falls back to ${working[0]}; ${playerText}` });
  } else {
    checks.push({
      name: 'audio device',
      level: needsDevice ? 'fail' : 'warn',
      detail: `no audio output works here: speaker: ${speaker!.detail}; ${playerText}${needsDevice ? '' : ` (not needed now: ${why})`}`,
      fix:
        opts.platform === 'darwin'
          ? 'check the output device in System Settings > Sound'
          : 'connect a sound card or start a sound server (PipeWire/PulseAudio) and install its player (pulseaudio-utils for paplay, or alsa-utils for aplay); on a headless machine use VOXD_AUDIO=file:DIR or VOXD_AUDIO=null',
    });
  }
  return checks;
}

async function configCheck(cwd: string): Promise<{ check: Check; config?: ResolvedConfig }> {
  try {
    const config = await resolveConfig(cwd);
    if (!config.file) return { check: { name: 'config', level: 'ok', detail: `none, defaults apply (no .vox/config.md at or above ${cwd})` }, config };
    const v = config.values;
    return {
      check: { name: 'config', level: 'ok', detail: `${config.file} is valid (notify ${v.notify}, speak ${v.speak}, engine ${v.engine}${v.voice ? `, voice ${v.voice}` : ''})` },
      config,
    };
  } catch (err) {
    if (err instanceof ConfigError) {
      const n = err.problems.length;
      const first = err.problems[0];
      return {
        check: {
          name: 'config',
          level: 'fail',
          detail: `${err.file} is invalid (${n} problem${n === 1 ? '' : 's'}${first ? `; first: ${first.line ? `line ${first.line}: ` : ''}${first.message}` : ''}); vox say and the hooks refuse it`,
          fix: 'run "vox config check" for every problem, and fix the file (docs/config.md)',
        },
      };
    }
    return { check: { name: 'config', level: 'fail', detail: `cannot read the config: ${(err as Error).message}`, fix: 'check the permissions of .vox/config.md' } };
  }
}

function hooksCheck(env: NodeJS.ProcessEnv, cwd: string): Check {
  const scopes: SettingsScope[] = ['user', 'project', 'local'];
  const states = scopes.map((scope) => ({ scope, ...inspectHooks(settingsPath(scope, { env, cwd })) }));
  const complete = states.filter((s) => !s.error && s.missing.length === 0);
  const partial = states.filter((s) => !s.error && s.installed.length > 0 && s.missing.length > 0);
  const broken = states.filter((s) => s.error);
  const describe = (s: (typeof states)[number]) =>
    s.error ? `${s.scope}: cannot read ${s.path}` : s.missing.length === 0 ? `${s.scope}: installed` : s.installed.length ? `${s.scope}: partly (missing ${s.missing.join(', ')})` : `${s.scope}: not installed`;
  const detail = states.map(describe).join('; ');
  if (broken.length) {
    return { name: 'hooks', level: 'warn', detail: `${detail} (${broken.map((s) => s.error).join('; ')})`, fix: `fix the JSON in ${broken.map((s) => s.path).join(' and ')}; Claude Code cannot read it either` };
  }
  if (complete.length) {
    if (partial.length) {
      return { name: 'hooks', level: 'ok', detail };
    }
    return { name: 'hooks', level: 'ok', detail: `${detail} (${complete.map((s) => s.path).join(', ')})` };
  }
  if (partial.length) {
    return { name: 'hooks', level: 'warn', detail, fix: `run "vox hooks install --${partial[0]!.scope}" to add the missing events` };
  }
  return {
    name: 'hooks',
    level: 'warn',
    detail: `${detail}; sessions speak only when Claude calls the tools (unless the vox plugin is installed)`,
    fix: 'run "vox hooks install" (every project) or "vox hooks install --project"; or install the plugin (docs/claude-code.md)',
  };
}

/** voxd's settings file: every voxd start reads it, and an invalid one stops voxd. */
async function settingsCheck(env: NodeJS.ProcessEnv): Promise<Check> {
  const { readSettingsFile, settingsPath, formatProblem } = await import('@vox/protocol/settings');
  const file = readSettingsFile(settingsPath(env));
  if (!file.exists) return { name: 'daemon settings', level: 'ok', detail: `none: voxd uses its defaults (${file.path} does not exist)` };
  const n = file.problems.length;
  if (n) {
    return {
      name: 'daemon settings',
      level: 'fail',
      detail: `${file.path} has ${n} problem${n === 1 ? '' : 's'}, so voxd will not start: ${file.problems.map((p) => formatProblem(p).replace(`${file.path}`, 'line')).join('; ')}`,
      fix: 'fix them with "vox daemon config set KEY VALUE" or "vox daemon config unset KEY" (docs/operations.md lists every setting)',
    };
  }
  const set = Object.entries(file.values).map(([k, v]) => `${k} ${v}`);
  return { name: 'daemon settings', level: 'ok', detail: `${file.path} is valid${set.length ? ` (${set.join(', ')})` : ' (empty: defaults)'}` };
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
    embeddedEngine: options.embeddedEngine ?? (() => embeddedEngine(env)),
    sherpaModule: options.sherpaModule ?? (() => sherpaModule(env)),
  };
  const guard = async (name: string, f: () => Promise<Check[]> | Check[]): Promise<Check[]> => {
    try {
      return await f();
    } catch (err) {
      return [{ name, level: 'fail', detail: `the check itself failed: ${(err as Error).message}`, fix: 'please report this with the output of "vox doctor --json"' }];
    }
  };

  const view = await (options.daemon ?? viewDaemon)(env).catch((err: Error): DaemonView => ({ error: err.message }));
  const [config, audio, service] = await Promise.all([
    configCheck(options.cwd),
    guard('audio', () => audioChecks(probe, view)),
    guard('service', async () => {
      const installed = await (options.serviceInstalled ?? defaultServiceInstalled)(env);
      const kind = platform === 'darwin' ? 'launchd' : 'systemd user units';
      if (!installed) return [{ name: 'service', level: 'ok' as const, detail: 'not installed; clients start voxd on demand ("vox daemon install" keeps it warm)' }];
      if (view.health) return [{ name: 'service', level: 'ok' as const, detail: `installed (${kind}) and voxd answers` }];
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
  ]);

  const settings = await guard('daemon settings', async () => [await settingsCheck(env)]);
  const selected = new Set<string>();
  const chosen = config.config?.values.engine;
  if (chosen && chosen !== 'auto') selected.add(chosen);
  if (env.VOXD_ENGINE && env.VOXD_ENGINE !== 'auto') selected.add(env.VOXD_ENGINE);

  const daemon = await guard('daemon', () => daemonChecks(env, view, options.clientVersion ?? VERSION));
  const isEngine = (c: Check) => c.name.startsWith('engine');
  return [
    ...(await guard('node', () => [nodeCheck(options.nodeVersion ?? process.versions.node)])),
    ...daemon.filter((c) => !isEngine(c)),
    ...(await guard('token', () => [tokenCheck(env, view, platform)])),
    ...daemon.filter(isEngine),
    ...(await guard('engines', () => engineChecks(probe, selected))),
    ...audio,
    config.check,
    ...(await guard('hooks', () => [hooksCheck(env, options.cwd)])),
    ...settings,
    ...service,
  ];
}

/** `ok|warn|fail  <check>: <detail>`, plus `  fix: ...` under a warn or fail. */
export function formatChecks(checks: readonly Check[]): string {
  const lines: string[] = [];
  for (const c of checks) {
    lines.push(`${c.level.padEnd(4)}  ${c.name}: ${c.detail}`);
    if (c.level !== 'ok' && c.fix) lines.push(`  fix: ${c.fix}`);
  }
  const fails = checks.filter((c) => c.level === 'fail').length;
  const warns = checks.filter((c) => c.level === 'warn').length;
  lines.push('', fails ? `${fails} check${fails === 1 ? '' : 's'} failed, ${warns} warning${warns === 1 ? '' : 's'}` : warns ? `no failures, ${warns} warning${warns === 1 ? '' : 's'}` : 'everything looks fine');
  return `${lines.join('\n')}\n`;
}

/** True when no check failed. */
export function healthy(checks: readonly Check[]): boolean {
  return checks.every((c) => c.level !== 'fail');
}
