/**
 * Which transcriber a listen uses: the setting `transcriber.kind`. `server`
 * is the OpenAI-compatible API (transcriber.ts), `local` the recognizer in
 * voxd (recognizer.ts), `auto` the local one when a model is installed, else
 * the server. Chosen at each listen, so installing a model needs no restart.
 */
import type { TranscriberStatus } from '@vox/protocol';
import type { TRANSCRIBER_KINDS } from '@vox/protocol/settings';
import { createKeys } from '../access/keys.js';
import { asrDir, findAsrModel, LocalRecognizer } from './recognizer.js';
import { Transcriber, type Transcript, type TranscriberConfig } from './transcriber.js';

export type TranscriberKind = (typeof TRANSCRIBER_KINDS)[number];

/** A transcript, and which transcriber made it (TranscriberUsed in @vox/protocol). */
export type Transcribed = Transcript & { by?: string };

export interface SpeechToText {
  /** Whether anything would transcribe (a listen without it only records). */
  readonly configured: boolean;
  transcribe(wav: Buffer, options?: { language?: string; signal?: AbortSignal }): Promise<Transcribed>;
}

export class Transcription implements SpeechToText {
  readonly #kind: TranscriberKind;
  readonly #server: Transcriber;
  readonly #local: LocalRecognizer;

  constructor(
    config: TranscriberConfig & { kind?: TranscriberKind },
    options: { home: string; env?: NodeJS.ProcessEnv; log?: { info(obj: object, msg?: string): void } },
  ) {
    const env = options.env ?? process.env;
    this.#kind = config.kind ?? 'auto';
    this.#server = new Transcriber(config, createKeys({ env, home: options.home }));
    this.#local = new LocalRecognizer({
      home: options.home,
      timeoutMs: config.timeoutMs,
      env,
      ...(options.log ? { log: options.log } : {}),
    });
  }

  #pick(): SpeechToText | undefined {
    if (this.#kind === 'local' || (this.#kind === 'auto' && this.#local.installed))
      return { configured: true, transcribe: (wav, o) => this.#local.transcribe(wav, o) };
    if (!this.#server.configured) return undefined;
    return {
      configured: true,
      transcribe: async (wav, o) => ({
        ...(await this.#server.transcribe(wav, o)),
        by: `server ${this.#server.endpoint}`,
      }),
    };
  }

  get configured(): boolean {
    return this.#pick() !== undefined;
  }

  transcribe(wav: Buffer, options: { language?: string; signal?: AbortSignal } = {}): Promise<Transcribed> {
    return (this.#pick() ?? this.#server).transcribe(wav, options);
  }
}

/**
 * What a listen would transcribe with now (GET /v1/status), by #pick's rule,
 * without loading anything: the model's manifest is read, not the model.
 */
export function describeTranscriber(
  config: Pick<TranscriberConfig, 'url'> & { kind?: TranscriberKind },
  home: string,
): TranscriberStatus {
  const kind = config.kind ?? 'auto';
  const server = config.url ? `server ${config.url.replace(/\/+$/, '')}/audio/transcriptions` : null;
  if (kind !== 'server') {
    try {
      const model = findAsrModel(home);
      if (model) return { kind, using: `local ${model.name} (${model.type})` };
      if (kind === 'local')
        return {
          kind,
          using: null,
          problem: `no model is installed in ${asrDir(home)}; to fix: "vox voices install whisper-tiny.en-int8" (offline: add --from FILE), or "vox daemon config set transcriber.kind auto"`,
        };
    } catch (err) {
      const e = err as Error & { why?: string; fix?: string };
      return { kind, using: null, problem: e.why ? `${e.why}; to fix: ${e.fix}` : e.message };
    }
  }
  return server
    ? { kind, using: server }
    : { kind, using: null, problem: 'transcriber.url is not set: a listen records and keeps the WAV' };
}
