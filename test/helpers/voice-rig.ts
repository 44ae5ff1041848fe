/**
 * What the voice-answer tests with the real Claude Code share: the stand-in
 * transcriber on 127.0.0.1, a real voxd that records the recorder shim (it
 * plays a WAV fixture, or the silent one), the stand-in Messages API with the
 * test's model, and Claude Code's offline environment in a HOME of its own.
 * The user "says" something with `hear(text)`, or nothing with `hear()`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, removeDir, startDaemon, tempDir, type Daemon } from './daemon.js';
import { offlineClaudeEnv, startMessagesApi, type MessagesRequest, type StandIn, type Turn } from './messages-api.js';
import { startTranscriptionApi, type TranscriptionApi } from './transcription-api.js';
import { writeSilentWav } from './wav.js';

export interface VoiceRig {
  d: Daemon;
  api: StandIn;
  stt: TranscriptionApi;
  home: string;
  env: NodeJS.ProcessEnv;
  /** The microphone plays the spoken fixture and the transcriber answers `text`; with no text, silence. */
  hear(text?: string): void;
  /** The lines of VOX_HOME/logs/voice-decisions.jsonl so far. */
  decisions<T = Record<string, unknown>>(): T[];
  /** A project under HOME with this front matter in its .vox/config.md. */
  project(name: string, frontMatter: string): string;
  close(): Promise<void>;
}

export async function startVoiceRig(
  prefix: string,
  model: (req: MessagesRequest) => Turn,
  o: { realtime?: boolean } = {},
): Promise<VoiceRig> {
  const stt = await startTranscriptionApi();
  const home = tempDir(prefix);
  const control = join(home, 'mic.json');
  const silence = writeSilentWav(join(home, 'silence.wav'), 8000);
  writeFileSync(control, '{}');
  const d = await startDaemon({
    // The sink plays at the speed of speech only where a test needs speech to be playing.
    realtime: o.realtime ?? false,
    env: {
      VOXD_RECORDER: join(FIXTURES, 'listen', 'arecord'),
      VOX_TEST_MIC_CONTROL: control,
      VOX_TEST_MIC_PIDFILE: join(home, 'mic.pid'),
      VOXD_TRANSCRIBER_URL: stt.url,
      VOXD_TRANSCRIBER_TIMEOUT_MS: '3000',
    },
  });
  const api = await startMessagesApi(model);
  const env = offlineClaudeEnv({ home, voxHome: d.home, apiUrl: api.url });
  env.TMPDIR = join(home, 'tmp');
  mkdirSync(env.TMPDIR);
  return {
    d,
    api,
    stt,
    home,
    env,
    hear(text) {
      writeFileSync(control, JSON.stringify(text === undefined ? { wav: silence } : {}));
      stt.mode = { kind: 'ok', text: text ?? '' };
    },
    decisions<T>() {
      const file = join(d.home, 'logs', 'voice-decisions.jsonl');
      return existsSync(file)
        ? readFileSync(file, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as T)
        : [];
    },
    project(name, frontMatter) {
      const dir = join(home, name);
      mkdirSync(join(dir, '.vox'), { recursive: true });
      writeFileSync(join(dir, '.vox', 'config.md'), `---\n${frontMatter}\n---\n`);
      return dir;
    },
    async close() {
      await api.close();
      await stt.close();
      await d.stop();
      removeDir(d.home);
      removeDir(home);
    },
  };
}
