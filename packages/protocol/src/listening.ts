/**
 * The microphone in GET /v1/status (`listening`, ListeningStatus in wire.ts,
 * which is full): the holder it names while voxd's voice barge-in monitor
 * (`listen.bargeIn: voice`) has the recorder open during speech. It is no
 * listen: no session, no floor, nobody queued behind it.
 */
export const VOICE_BARGE_IN_ID = 'voice-barge-in';
