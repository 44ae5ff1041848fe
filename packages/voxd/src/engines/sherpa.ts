/**
 * The neural offline engine: sherpa-onnx (an optional dependency) running the
 * voice models that `vox voices install` put in `VOX_HOME/models`.
 *
 * Design notes:
 * - Each model is loaded once, in a child process of voxd (sherpa-host.ts says
 *   why not a worker thread; docs/engines.md has the measurements). Clients
 *   never load a model.
 * - `ready()` is false, with the reason, when the module did not install, when
 *   no whole model is installed (a damaged one is named), or when the model
 *   failed to load. The registry then uses the next engine.
 * - Voices: `MODEL` (its first speaker), `MODEL:SPEAKER`, or a bare `SPEAKER`
 *   of any installed model. With no voice, the model installed last speaks.
 * - voxd asks for one sentence at a time; sherpa-onnx also splits a longer text
 *   into sentences itself (`maxNumSentences: 1`), and each is sent on as soon as
 *   it is rendered. The first sentence of a playback is rendered as its first
 *   phrase and then the rest (text/phrase.ts), so that first audio waits only
 *   for the phrase.
 * - A host that dies while loading marks its model failed until the model is
 *   reinstalled (its manifest changes); one that dies while speaking is started
 *   again at the next request, up to MAX_CRASHES times.
 * - Idle unload (`idleUnloadMs`, the `sherpa.idleUnloadMs` setting; off by
 *   default): a host is closed once nothing has used it for that long, and the
 *   next request starts it again (docs/engines.md has the reload cost). A
 *   host in use is never unloaded (sherpa-process.ts says how a use is held).
 *   An unload is not a failure: it counts as no crash, and the model stays
 *   ready.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { statSync } from 'node:fs';
import { checkModel, listModels, modelsDir, type ModelCheck, type ModelManifest } from '@vox/protocol/models';
import type { Voice } from '@vox/protocol';
import { VoxError } from '../errors.js';
import { splitFirstPhrase } from '../text/phrase.js';
import { EngineError, type Engine, type Readiness, type Synthesis, type SynthesisRequest } from './engine.js';
import type { AudioFormat } from '../audio/pcm.js';
import { Host, type Installed } from './sherpa-process.js';

export { sherpaConfig } from './sherpa-process.js';

export interface SherpaEngineOptions {
  /** VOX_HOME; models are in its `models/`. */
  home: string;
  env?: NodeJS.ProcessEnv;
  /** The module to load. Default `VOXD_SHERPA_MODULE`, else `sherpa-onnx-node`. */
  module?: string;
  /** onnxruntime threads per model. Default `VOXD_SHERPA_THREADS`, else one less than the cores (1 to 4). */
  threads?: number;
  /** ms with no synthesis after which a model's host is closed (the next request loads it again). Default 0: never. */
  idleUnloadMs?: number;
  log?: { info(obj: object, msg?: string): void };
}

/** Words per minute that sherpa's speed 1 is taken to be (eSpeak's default rate). */
const NORMAL_WPM = 175;
const MAX_CRASHES = 3;
type Scan = { usable: Installed[]; broken: Array<Extract<ModelCheck, { ok: false }>> };

export function defaultThreads(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.VOXD_SHERPA_THREADS);
  if (Number.isInteger(n) && n >= 1) return Math.min(n, 64);
  // One core stays free for voxd's event loop and the audio worker.
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

export class SherpaEngine implements Engine {
  readonly name = 'sherpa';
  #home: string;
  #module: string;
  #threads: number;
  #moduleProblem: string | undefined | null = null;
  #hosts = new Map<string, Host>();
  /** Models that failed to load, by name, with the manifest's installedAt they failed with. */
  #failed = new Map<string, { installedAt: string; reason: string }>();
  #crashes = new Map<string, number>();
  #closed = false;
  #idleUnloadMs: number;
  #log: SherpaEngineOptions['log'];
  #checked: { at: number; mtime: number; result: Scan } | undefined;
  /** How long a check of the installed models' files is reused while `models/` is unchanged (ms). */
  static readonly CHECK_MS = 5000;

  constructor(options: SherpaEngineOptions) {
    const env = options.env ?? process.env;
    this.#home = options.home;
    this.#module = options.module ?? env.VOXD_SHERPA_MODULE ?? 'sherpa-onnx-node';
    this.#threads = options.threads ?? defaultThreads(env);
    this.#idleUnloadMs = options.idleUnloadMs ?? 0;
    this.#log = options.log;
  }

  get threads(): number {
    return this.#threads;
  }

  /** Why the module cannot be used, or undefined. Resolution only: the addon loads in the host. */
  #moduleCheck(): string | undefined {
    if (this.#moduleProblem !== null) return this.#moduleProblem;
    const require = createRequire(import.meta.url);
    try {
      const main = require.resolve(this.#module);
      if (this.#module === 'sherpa-onnx-node') {
        const platform = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
        try {
          createRequire(main).resolve(`sherpa-onnx-${platform}/package.json`);
        } catch {
          return (this.#moduleProblem = `sherpa-onnx has no prebuilt package for ${platform} here (sherpa-onnx-${platform} did not install)`);
        }
      }
      return (this.#moduleProblem = undefined);
    } catch {
      return (this.#moduleProblem = `${this.#module} is not installed (an optional dependency that did not install; "npm install sherpa-onnx-node" in vox's directory adds it)`);
    }
  }

  /**
   * Whole installed models, the one installed last first; damaged ones in `broken`.
   * A healthy answer is reused while `models/` is unchanged (an install or a
   * removal renames into or out of it), for at most CHECK_MS: a model's files are
   * a stat each, and a request asks several times. Any other answer is checked
   * afresh each time, and a model is checked again right before it loads.
   */
  #models(): Scan {
    let mtime = -1;
    try {
      mtime = statSync(modelsDir(this.#home)).mtimeMs;
    } catch {
      // No models directory: nothing installed.
    }
    const now = performance.now();
    const c = this.#checked;
    if (
      c &&
      c.mtime === mtime &&
      now - c.at < SherpaEngine.CHECK_MS &&
      c.result.broken.length === 0 &&
      c.result.usable.length > 0
    )
      return c.result;
    const result = this.#scan();
    this.#checked = { at: now, mtime, result };
    return result;
  }

  #scan(): Scan {
    const all = listModels(this.#home);
    const usable = all
      .filter((m): m is Installed => m.ok)
      .sort(
        (a, b) =>
          b.manifest.installedAt.localeCompare(a.manifest.installedAt) ||
          a.manifest.name.localeCompare(b.manifest.name),
      );
    // A removed or replaced model's host lets its memory go.
    for (const [name, host] of this.#hosts) {
      if (!usable.some((m) => m.manifest.name === name && m.manifest.installedAt === host.model.manifest.installedAt)) {
        this.#hosts.delete(name);
        void host.close();
      }
    }
    return { usable, broken: all.filter((m): m is Extract<ModelCheck, { ok: false }> => !m.ok) };
  }

  #failure(m: Installed): string | undefined {
    const f = this.#failed.get(m.manifest.name);
    if (!f) return undefined;
    if (f.installedAt !== m.manifest.installedAt) {
      // Reinstalled since: try again.
      this.#failed.delete(m.manifest.name);
      this.#crashes.delete(m.manifest.name);
      return undefined;
    }
    return f.reason;
  }

  async ready(): Promise<Readiness> {
    const problem = this.#moduleCheck();
    if (problem) return { ready: false, reason: problem };
    const { usable, broken } = this.#models();
    if (usable.some((m) => !this.#failure(m))) return { ready: true };
    const reasons = [
      ...usable.map((m) => `model ${m.manifest.name} failed to load: ${this.#failure(m)}`),
      ...broken.map(
        (m) => `model ${m.name} is not usable: ${m.reason}; reinstall it with "vox voices install ${m.name} --force"`,
      ),
    ];
    return {
      ready: false,
      reason: reasons.length
        ? reasons.join('; ')
        : 'no voice model is installed ("vox voices install NAME" installs one; "vox voices list" shows them)',
    };
  }

  understandsTags(): boolean {
    return false;
  }

  async voices(): Promise<Voice[]> {
    if (this.#moduleCheck()) return [];
    return this.#models()
      .usable.filter((m) => !this.#failure(m))
      .flatMap((m) => voicesOf(m.manifest));
  }

  /** Whether `voice` names a speaker of an installed model (the registry's automatic choice honours it). */
  claims(voice: string): boolean {
    return this.#moduleCheck() === undefined && this.#pick(voice) !== undefined;
  }

  /** False only when a model is usable and no installed model has `voice`: without one, the fallback decides. */
  async knowsVoice(voice: string): Promise<boolean> {
    if (!(await this.ready()).ready) return true;
    return this.#pick(voice) !== undefined;
  }

  /** The model and speaker for a voice; undefined when none matches. */
  #pick(voice: string | undefined): { model: Installed; sid: number; speaker: string } | undefined {
    const usable = this.#models().usable.filter((m) => !this.#failure(m));
    const first = (m: Installed) => ({
      model: m,
      sid: m.manifest.speakers[0]!.sid,
      speaker: m.manifest.speakers[0]!.id,
    });
    if (!voice) return usable[0] && first(usable[0]);
    const v = voice.toLowerCase();
    const [modelName, speakerName] = v.includes(':')
      ? [v.slice(0, v.indexOf(':')), v.slice(v.indexOf(':') + 1)]
      : [v, undefined];
    const byName = usable.find((m) => m.manifest.name.toLowerCase() === modelName);
    if (byName) {
      if (speakerName === undefined) return first(byName);
      const s = byName.manifest.speakers.find(
        (x) => x.id.toLowerCase() === speakerName || String(x.sid) === speakerName,
      );
      return s && { model: byName, sid: s.sid, speaker: s.id };
    }
    if (speakerName !== undefined) return undefined;
    for (const m of usable) {
      const s = m.manifest.speakers.find((x) => x.id.toLowerCase() === v);
      if (s) return { model: m, sid: s.sid, speaker: s.id };
    }
    return undefined;
  }

  cacheParams(request: SynthesisRequest): Record<string, string | number | undefined> {
    const p = this.#pick(request.voice);
    if (!p) return {};
    const [head, rest] = parts(request);
    const lead = rest === undefined ? undefined : head!.length;
    // The model's install time: a reinstalled or different default model never replays old audio.
    // A sentence rendered as two phrases sounds different from one rendered whole.
    return { model: `${p.model.manifest.name}@${p.model.manifest.installedAt}`, sid: p.sid, lead };
  }

  #host(model: Installed): Host {
    const name = model.manifest.name;
    const existing = this.#hosts.get(name);
    if (existing?.alive && existing.model.manifest.installedAt === model.manifest.installedAt) return existing;
    existing?.kill();
    const fresh = checkModel(model.dir, name);
    if (!fresh.ok) {
      this.#checked = undefined;
      throw new EngineError(`model ${name} is not usable: ${fresh.reason}`);
    }
    const host = new Host(
      model,
      this.#module,
      this.#threads,
      (h, whileLoading) => {
        if (this.#hosts.get(name) === h) this.#hosts.delete(name);
        // Closed on purpose (idle, removed, shutdown): not a crash, and the model stays ready.
        if (this.#closed || h.closing) return;
        const crashes = (this.#crashes.get(name) ?? 0) + 1;
        this.#crashes.set(name, crashes);
        if (whileLoading || crashes >= MAX_CRASHES) {
          this.#failed.set(name, { installedAt: model.manifest.installedAt, reason: h.failure ?? 'stopped' });
        }
      },
      this.#idleUnloadMs,
      (h) => {
        if (this.#hosts.get(name) !== h) return;
        this.#hosts.delete(name);
        this.#log?.info(
          { model: name, idleUnloadMs: this.#idleUnloadMs, pid: h.pid },
          'voice model unloaded (idle); the next request loads it again',
        );
        void h.close();
      },
    );
    this.#hosts.set(name, host);
    return host;
  }

  /** Load the default model now (voxd calls this at start), so the first request does not wait for it. Resolves either way. */
  async warm(): Promise<{ model?: string; loadMs?: number; error?: string }> {
    if (this.#moduleCheck()) return {};
    const p = this.#pick(undefined);
    if (!p) return {};
    const started = performance.now();
    try {
      await this.#host(p.model).loaded;
      return { model: p.model.manifest.name, loadMs: Math.round(performance.now() - started) };
    } catch (err) {
      return { model: p.model.manifest.name, error: (err as Error).message };
    }
  }

  /** Pids of the running model hosts (for status and benchmarks). */
  hostPids(): number[] {
    return [...this.#hosts.values()].filter((h) => h.alive && h.pid).map((h) => h.pid!);
  }

  async synthesize(request: SynthesisRequest): Promise<Synthesis> {
    const problem = this.#moduleCheck();
    if (problem) throw new EngineError(problem);
    request.signal?.throwIfAborted();
    const p = this.#pick(request.voice);
    if (!p) {
      if (request.voice) {
        throw new VoxError('VOX_ERR_VOICE_UNKNOWN', {
          message: `unknown voice "${request.voice}" for sherpa (run "vox voices --engine sherpa" for the list)`,
        });
      }
      const r = await this.ready();
      throw new EngineError(r.ready ? 'no voice model is installed' : r.reason);
    }
    const host = this.#host(p.model);
    // Held from here: a host that is (re)loading for this request is not unloaded under it.
    const waiting = host.hold();
    let format: AudioFormat;
    try {
      format = await host.loaded;
    } catch (err) {
      throw new EngineError(`model ${p.model.manifest.name} failed to load: ${(err as Error).message}`);
    } finally {
      host.release(waiting);
    }
    const speed = request.rate === undefined ? 1 : Math.max(0.5, Math.min(3, request.rate / NORMAL_WPM));
    return host.synthesize(parts(request), p.sid, speed, request.signal, format);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const hosts = [...this.#hosts.values()];
    this.#hosts.clear();
    await Promise.all(hosts.map((h) => h.close()));
  }
}

/**
 * What the host renders for a request: the sentence, or, for the first one of a
 * playback, its first phrase and then the rest, so the audio starts after the
 * phrase's share of the work (these models render a whole text before any of it).
 */
function parts(request: SynthesisRequest): string[] {
  const split = request.leading ? splitFirstPhrase(request.text) : undefined;
  return split ?? [request.text];
}

/** The voices of a model: `MODEL` for a one-speaker model, `MODEL:SPEAKER` for each speaker otherwise. */
export function voicesOf(m: ModelManifest): Voice[] {
  return m.speakers.map((s) => ({
    id: m.speakers.length === 1 ? m.name : `${m.name}:${s.id}`,
    name: s.name ?? s.id,
    languages: s.languages ?? m.languages,
    engine: 'sherpa',
  }));
}
