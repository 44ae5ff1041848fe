/**
 * Which transcriber made a listen's transcript (POST /v1/listen's answer,
 * beside ListenResponse; wire.ts is full): `local NAME (TYPE)` for a model in
 * VOX_HOME/asr, `server URL` for the OpenAI-compatible API. What
 * `transcriber.kind: auto` picked, said rather than guessed at.
 */
export interface TranscriberUsed {
  transcriber?: string;
}

/**
 * GET /v1/status's `transcriber`: what a listen would transcribe with now,
 * by the same choice a listen makes (`transcriber.kind`, the model in
 * VOX_HOME/asr, `transcriber.url`). Absent from a voxd older than this field.
 */
export interface TranscriberStatus {
  /** The setting `transcriber.kind`: auto, local or server. */
  kind: string;
  /** `local NAME (TYPE)` or `server URL`, as a listen's `transcriber` says it; null: none, a listen only records. */
  using: string | null;
  /** Why it cannot transcribe, when it cannot (a damaged model, none where `local` needs one, no URL). */
  problem?: string;
}

export interface TranscriberStatusField {
  transcriber?: TranscriberStatus;
}
