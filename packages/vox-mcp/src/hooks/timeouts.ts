/**
 * How long an agent gives vox's hooks, as written into every agent's
 * settings: a stuck hook must not hold a session, and a voice answer needs
 * room (voice/voice-turn.ts keeps its turn 5 s under its timeout).
 */

/** The per-hook timeout, in seconds (Claude Code's default is 60). */
export const HOOK_TIMEOUT_SECONDS = 10;
/** PermissionRequest's and Elicitation's timeout, in seconds: room for a voice answer. */
export const VOICE_HOOK_TIMEOUT_SECONDS = 30;
