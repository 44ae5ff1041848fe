/**
 * The daemon's life, loaded by main.ts: the only place that exits. It reads
 * the options (options.ts), takes the single-instance lock
 * (instance-lock.ts), builds the server, listens, handles signals and shuts
 * down.
 */
// First: modules Fastify and pino load and voxd never uses load only if reached.
import { endLazyRequires } from './lazy-requires.js';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION, homePaths, voxHome } from '@vox/protocol';
import { readSettingsFile, resolveSettings, settingsPath, type SettingKey } from '@vox/protocol/settings';
import { EspeakEngine } from './engines/espeak.js';
import { SherpaEngine } from './engines/sherpa.js';
import { Journal, journalMaxBytes } from './dispatch/journal.js';
import { Recall } from './dispatch/recall.js';
import { SESSION_VOICES_FILE, VoiceAssignment } from './voices/assignment.js';
import { appendStartupLog, createLogger } from './log/logger.js';
import { EXIT_ALREADY_RUNNING, takeInstanceLock, voxdVersionAt } from './instance-lock.js';
import { parseFlags, SETTING_FLAGS, settingsFailure, settingSource, usableHome, USAGE } from './options.js';
import { buildServer } from './server.js';
import { createSink } from './sinks/create.js';
import type { Sink } from './sinks/sink.js';
import { keepFiles } from './access/keeper.js';
import { keptState, moveAside, removeState, writeState } from './access/state-file.js';
import { ensureToken, keptToken } from './access/token.js';
import { createSynthesis } from './synthesis/create.js';
import { TextPreparer } from './text/preparer.js';
import { startIdleTrim } from '@vox/protocol/idle-trim';
import type { VadMode } from './listen/silero.js';
import type { TranscriberKind } from './listen/transcription.js';

// Fastify and pino are loaded: later loads need no stand-ins.
endLazyRequires();

/** Set once VOX_HOME/logs is usable: start-up failures go there too, not only to stderr. */
let startupLogDir: string | undefined;

function fail(message: string, code = 1): never {
  process.stderr.write(`voxd: ${message}\n`);
  if (startupLogDir) appendStartupLog(startupLogDir, 'fatal', `voxd cannot start: ${message}`, { exitCode: code });
  process.exit(code);
}

let args;
try {
  args = parseFlags(process.argv.slice(2));
} catch (err) {
  fail(`${(err as Error).message}\n\n${USAGE}`, 2);
}
if (args.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (args.version) {
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}

const env = process.env;
// A client that started voxd may stop reading its stderr; a write then must not kill voxd.
process.stderr.on('error', () => {});
if (args.home) env.VOX_HOME = args.home;
const paths = homePaths(voxHome(env));
const homeProblem = usableHome(paths.home, paths.logs);
if (homeProblem)
  fail(
    `VOX_HOME=${paths.home} cannot be used: ${homeProblem}. Set VOX_HOME to a directory you can write, or fix this one.`,
  );
startupLogDir = paths.logs;

const settingsFile = readSettingsFile(settingsPath(env));
const flags: Partial<Record<SettingKey, string>> = {};
for (const key of SETTING_FLAGS) if (args[key] !== undefined) flags[key] = args[key];
const settings = resolveSettings({ env, file: settingsFile, flags });
const badSettings = settingsFailure(settings, settingsFile);
if (badSettings) fail(badSettings, 2);
const { port, host, audio: sinkSpec } = settings.values;
// The engine registry reads VOXD_ENGINE; the resolved setting decides it.
env.VOXD_ENGINE = settings.values.engine;

const log = createLogger({ dir: paths.logs, level: settings.values.logLevel });
log.info(
  { settings: settings.values, sources: settings.sources, file: settingsFile.exists ? settingsFile.path : undefined },
  'voxd starting',
);
// Others who can write VOX_HOME can swap the token or voxd.json under us: say so (voxd creates it 0700).
const homeMode = statSync(paths.home).mode & 0o777;
if (process.platform !== 'win32' && homeMode & 0o022) {
  const warning = `VOX_HOME=${paths.home} is writable by ${homeMode & 0o002 ? 'everyone' : 'its group'} (mode ${homeMode.toString(8)}); run "chmod 700 ${paths.home}"`;
  log.warn(warning);
  process.stderr.write(`voxd: warning: ${warning}\n`);
}

const locked = await takeInstanceLock(paths, log);
if ('problem' in locked) fail(locked.problem, locked.exitCode);
const { release } = locked;

// Handlers go in before anything slow, so an early SIGTERM still cleans up.
let stopping = false;
let shutdownHook: (() => Promise<void>) | undefined;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  // First: a client whose waiting request is handed over (the journal) re-sends
  // at once, and must look for the next voxd, not at this one.
  removeState(paths.state);
  // Hard deadline: the issue allows 2 s to finish or cut the current utterance.
  setTimeout(() => {
    removeState(paths.state);
    process.exit(0);
  }, 2500).unref();
  try {
    await shutdownHook?.();
  } catch (err) {
    log.error({ err }, 'error during shutdown');
  }
  removeState(paths.state);
  await release().catch(() => {});
  // The last lines reach the file before exit (a blocked disk: the deadline above ends it).
  await new Promise<void>((resolve) => log.flush(() => resolve()));
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
// A write past a file-size limit (RLIMIT_FSIZE) must fail with EFBIG, like a full
// disk, not kill voxd: Node ignores SIGXFSZ, but proper-lockfile's signal-exit
// re-raises it unless another listener exists.
process.on('SIGXFSZ', () => {});
// Before voxd listens, anything unexpected is fatal and said on stderr (with a
// non-zero exit); once it serves, it is logged and voxd keeps serving.
let serving = false;
const unexpected = (what: string) => (err: unknown) => {
  if (!serving) fail(`${what} while starting: ${(err as Error)?.message ?? String(err)}`);
  log.error({ err }, what);
};
process.on('unhandledRejection', unexpected('unhandled rejection'));
process.on('uncaughtException', unexpected('uncaught exception'));

let token: string;
try {
  token = ensureToken(paths.token, (msg) => log.warn(msg));
} catch (err) {
  await release();
  fail(`cannot use the token file: ${(err as Error).message}`);
}
let sink: Sink;
try {
  sink = createSink(sinkSpec, { env, log: (obj, msg) => log.debug(obj, msg) });
} catch (err) {
  await release();
  fail(`audio "${sinkSpec}" (from ${settingSource(settings, settingsFile, 'audio')}): ${(err as Error).message}`, 2);
}
// Probe the output at start, so the first request and "vox status" know whether anything can be heard.
void sink.check().then((state) => {
  if (!state.ok) log.warn({ sink: state }, `no audio output: ${state.lastError ?? state.detail}`);
  else log.info({ sink: state }, 'audio output ready');
});
const espeak = new EspeakEngine();
let synthesis;
try {
  const sherpaEngine = new SherpaEngine({
    home: paths.home,
    env,
    idleUnloadMs: settings.values['sherpa.idleUnloadMs'],
    log,
  });
  synthesis = await createSynthesis({ env, home: paths.home, embedded: espeak, log, sherpa: sherpaEngine });
} catch (err) {
  await release();
  fail((err as Error).message, 2);
}
// A neural voice model loads in the background at start (in its own process), so the first request does not wait for it.
// Not when another engine is pinned: the model's memory would serve nothing.
const sherpa = synthesis.registry.get('sherpa') as SherpaEngine | undefined;
if (sherpa && [undefined, 'auto', 'sherpa'].includes(env.VOXD_ENGINE || undefined)) {
  void sherpa.warm().then((r) => {
    if (r.error) log.warn({ model: r.model, reason: r.error }, 'voice model failed to load');
    else if (r.model) log.info({ model: r.model, loadMs: r.loadMs, threads: sherpa.threads }, 'voice model loaded');
  });
}
// The embedded engine is a worker thread holding eSpeak's 24 MB of data (some 65 MB of RSS): started at boot
// only when it is the default engine, else on its first use (a fallback), which then waits for it.
const warm = synthesis.registry
  .resolve(env.VOXD_ENGINE)
  .then((engine) => (engine === espeak ? espeak.start() : undefined))
  .catch((err: Error) => log.error({ err }, 'embedded espeak failed to start'));
const text = new TextPreparer();
// Only the lock holder reads the journal: what it holds is replayed before voxd listens.
let journalCap: number;
try {
  journalCap = journalMaxBytes(env);
} catch (err) {
  await release();
  fail((err as Error).message, 2);
}
const journal = Journal.open(paths.journal, { log, maxBytes: journalCap });
const listen = {
  home: paths.home,
  recorder: settings.values['listen.recorder'],
  vad: settings.values['listen.vad'] as VadMode,
  bargeIn: settings.values['listen.bargeIn'],
  transcriber: {
    kind: settings.values['transcriber.kind'] as TranscriberKind,
    url: settings.values['transcriber.url'],
    model: settings.values['transcriber.model'],
    timeoutMs: settings.values['transcriber.timeoutMs'],
  },
  env,
};
// What was heard and missed: `vox recap`, `vox history` and `vox replay` after a restart too.
const recall = new Recall(paths.recall, { log });
const voices = new VoiceAssignment({ path: join(paths.home, SESSION_VOICES_FILE), log });
const { app, dispatcher, listener } = await buildServer({
  token,
  synthesizer: synthesis.synthesizer,
  prepare: text.prepare,
  sink,
  logger: log,
  version: VERSION,
  listen,
  journal,
  recall,
  voices,
  attention: { mode: settings.values.attention as 'all' | 'focus', digestMs: settings.values.digestMs },
  quiet: { hours: settings.values['quiet.hours'], microphone: settings.values['quiet.microphone'], env },
});

const listenFds = Number(env.LISTEN_FDS ?? 0);
const activated = listenFds >= 1 && Number(env.LISTEN_PID) === process.pid;
let boundPort = port;
try {
  if (activated) {
    // systemd socket activation: the listening socket is fd 3.
    await app.ready();
    await new Promise<void>((resolve, reject) => {
      app.server.once('error', reject);
      app.server.listen({ fd: 3 }, resolve);
    });
  } else {
    await app.listen({ port, host });
  }
  const addr = app.server.address();
  if (addr && typeof addr === 'object') boundPort = addr.port;
} catch (err) {
  await release();
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EADDRINUSE') {
    // A voxd may hold it: systemd's socket for the service (asking starts it), or one for another VOX_HOME.
    const other = await voxdVersionAt(host, port);
    if (other)
      fail(
        `port ${port} on ${host} is served by voxd ${other} already (the service's socket, or a voxd for another VOX_HOME); clients reach it there`,
        EXIT_ALREADY_RUNNING,
      );
    const how =
      settings.sources.port === 'flag'
        ? 'pass another --port'
        : settings.sources.port === 'env'
          ? 'set VOXD_PORT to another port'
          : '"vox daemon config set port N" chooses another (or VOXD_PORT=N for one run)';
    fail(`port ${port} on ${host} is in use by another program; ${how}`);
  }
  fail(`cannot listen on ${host}:${port}: ${e.message}`);
}
// Replay before the first request is read (this runs before the event loop
// turns): a client that re-sends must find its request back in the queue.
for (const problem of journal.replay.problems) log.warn({ journal: paths.journal }, problem);
dispatcher.restore(journal.replay);
// A directory or FIFO where voxd.json goes (planted, or left by a crash) is moved aside and reported: voxd writes the file.
const movedState = moveAside(paths.state);
if (movedState) {
  log.warn(movedState);
  process.stderr.write(`voxd: warning: ${movedState}\n`);
}
const daemonState = {
  pid: process.pid,
  host,
  port: boundPort,
  version: VERSION,
  startedAt: new Date().toISOString(),
  audio: sinkSpec,
  engine: settings.values.engine,
  sources: settings.sources,
};
writeState(paths.state, daemonState);
// A new voxd answers: a "vox daemon stop|restart" before it is over, and its waiters may start voxd again.
rmSync(paths.stopped, { force: true });
keepFiles(paths.home, [keptState(paths.state, daemonState), keptToken(paths.token, token)], (msg) => log.warn(msg));
serving = true;
// Idle, the heap's slack goes back to the system (idle-trim.ts), looked at every 5 s (the
// default 10 s left a request's garbage up to 20 s; the budget is 15 s, docs/benchmarks.md).
const trim = startIdleTrim({ checkMs: 5_000, minGrowth: 1024 * 1024, log });
log.info({ port: boundPort, host, sink: sink.name, version: VERSION, activated }, 'voxd listening');
process.stderr.write(`voxd ${VERSION} listening on ${host}:${boundPort} (audio: ${sink.name})\n`);
shutdownHook = async () => {
  trim.stop();
  // The microphone first (its recorder is a child process), then settle speech,
  // so callers that wait hear how their request ended.
  await listener.loaded()?.close();
  await dispatcher.close();
  await app.close();
  // After the dispatcher: what it handed over stays in the journal for the next voxd.
  await journal.close();
  recall.close();
  await text.close();
  await synthesis.close();
  await espeak.close();
  await sink.close();
};
await warm;
