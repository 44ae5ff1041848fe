/**
 * Which transcriber made a listen's transcript (POST /v1/listen's answer,
 * beside ListenResponse; wire.ts is full): `local NAME (TYPE)` for a model in
 * VOX_HOME/asr, `server URL` for the OpenAI-compatible API. What
 * `transcriber.kind: auto` picked, said rather than guessed at.
 */
export interface TranscriberUsed {
  transcriber?: string;
}
