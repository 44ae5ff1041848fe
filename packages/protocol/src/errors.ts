/**
 * The catalogue of errors voxd sends on the wire. Each code is stable: a retired
 * code is never reused. The body of every error response is `{code, message, statusCode}`.
 * `docs/errors.md` documents each code; a test keeps the two in step.
 */
export interface ErrorSpec {
  statusCode: number;
  /** One line that says what went wrong and how to fix it. `%s` is filled in order. */
  message: string;
}

export const WIRE_ERRORS = {
  VOX_ERR_AUTH_MISSING: {
    statusCode: 401,
    message: 'Missing bearer token. Send "Authorization: Bearer <token>" with the token from VOX_HOME/token.',
  },
  VOX_ERR_AUTH_INVALID: {
    statusCode: 401,
    message:
      'Wrong bearer token. Read the current token from VOX_HOME/token (it changes only when the file is deleted).',
  },
  VOX_ERR_ORIGIN_FORBIDDEN: {
    statusCode: 403,
    message: 'Requests from browsers are refused (an Origin header was sent). Call voxd from a local program instead.',
  },
  VOX_ERR_HOST_FORBIDDEN: {
    statusCode: 403,
    message: 'Host header %s is not a loopback address. Connect to 127.0.0.1, ::1 or localhost.',
  },
  VOX_ERR_HTTP_MALFORMED: {
    statusCode: 400,
    message: 'The request is not valid HTTP/1.1 (%s). Send a well-formed request; any HTTP client library does.',
  },
  VOX_ERR_HEADERS_TOO_LARGE: {
    statusCode: 431,
    message: 'The request headers are larger than voxd accepts. Send only the headers the request needs.',
  },
  VOX_ERR_REQUEST_TIMEOUT: {
    statusCode: 408,
    message: 'The request did not arrive whole within %s seconds. Send the headers and the whole body at once.',
  },
  VOX_ERR_BODY_INVALID_JSON: {
    statusCode: 400,
    message: 'The request body is not valid JSON: %s. Send a JSON object with Content-Type: application/json.',
  },
  VOX_ERR_BODY_INVALID: {
    statusCode: 400,
    message: 'Invalid request: %s. See docs/protocol.md for the fields and their ranges.',
  },
  VOX_ERR_BODY_TOO_LARGE: {
    statusCode: 413,
    message: 'The request body is larger than %s bytes. Send less text, or split it into several requests.',
  },
  VOX_ERR_TEXT_TOO_LONG: {
    statusCode: 413,
    message: 'The text is longer than %s characters. Shorten it, or split it into several requests.',
  },
  VOX_ERR_TALK_UNKNOWN_SESSION: {
    statusCode: 404,
    message: 'No session to talk to: %s. Name one of the live labels (a session is live while its vox mcp runs).',
  },
  VOX_ERR_TALK_SESSION_TAKEN: {
    statusCode: 409,
    message:
      'The talk inbox of session %s belongs to the vox mcp that registered it, and %s; nothing was taken. Present the secret your first poll of this label sent or was given; a registration lapses 60 s after its last poll, or at once when its poll hung up (its vox mcp stopped).',
  },
  VOX_ERR_NOT_FOUND: {
    statusCode: 404,
    message: 'No route %s. See docs/protocol.md for the routes voxd serves.',
  },
  VOX_ERR_REPLAY_NONE: {
    statusCode: 404,
    message: 'There is no utterance %s to play again: %s. "vox history" lists what can be replayed.',
  },
  VOX_ERR_QUEUE_FULL: {
    statusCode: 503,
    message: 'The speech queue holds %s requests already. Wait for it to drain, or stop it with "vox stop --all".',
  },
  VOX_ERR_NARRATION_SESSION_FULL: {
    statusCode: 429,
    message:
      'Session %s already has %s narrated messages open (their last batch not yet come), its limit: a new message of it is refused until one ends (its last batch, a new prompt, or "vox stop --session"). Other sessions are still narrated.',
  },
  VOX_ERR_JOURNAL_FULL: {
    statusCode: 503,
    message:
      'voxd\'s journal holds %s unsettled requests, its cap of %s bytes (VOXD_JOURNAL_MAX_BYTES): it cannot keep more across a restart, so this one was not taken. Wait for the queue to drain, or clear it with "vox stop --all".',
  },
  VOX_ERR_JOURNAL_UNWRITABLE: {
    statusCode: 503,
    message:
      "voxd cannot write its journal %s (%s), so it cannot keep this request across a restart and did not take it. Free space on that disk, or remove what is in the journal's place; the next request tries again.",
  },
  VOX_ERR_TOO_MANY_CONNECTIONS: {
    statusCode: 503,
    message:
      'voxd has %s connections open, its limit (a share of its file-descriptor limit, ulimit -n %s), and none of them idle. Retry in a moment; if it persists, a program is holding many connections to voxd.',
  },
  VOX_ERR_SHUTTING_DOWN: {
    statusCode: 503,
    message: 'voxd is shutting down. Retry in a moment; the next request starts a new daemon.',
  },
  VOX_ERR_ENGINE_UNKNOWN: {
    statusCode: 400,
    message: 'Unknown engine %s. Known engines: %s.',
  },
  VOX_ERR_AUDIO_UNAVAILABLE: {
    statusCode: 503,
    message: 'No audio output, so nothing will be heard: %s. To fix: %s.',
  },
  VOX_ERR_SYNTHESIS_FAILED: {
    statusCode: 500,
    message: 'Speech synthesis failed: %s. Check "vox status" and the logs in VOX_HOME/logs.',
  },
  VOX_ERR_PLAYBACK_FAILED: {
    statusCode: 500,
    message: 'Audio playback failed: %s. Run "vox doctor" to check the audio device, or set VOXD_AUDIO.',
  },
  VOX_ERR_PLAYBACK_TIMEOUT: {
    statusCode: 500,
    message: 'Audio playback timed out: %s. Check the player with "vox doctor", or set VOXD_AUDIO.',
  },
  VOX_ERR_VOICE_UNKNOWN: {
    statusCode: 400,
    message: 'Unknown voice %s for engine %s (the field "voice"). List the voices with "vox voices" or GET /v1/voices.',
  },
  VOX_ERR_SYNTHESIZE_TOO_LARGE: {
    statusCode: 413,
    message:
      'The audio of this text is longer than /v1/synthesize returns (%s MB, about %s minutes). Record a shorter text, or split it into several requests.',
  },
  VOX_ERR_SYNTHESIZE_BUSY: {
    statusCode: 429,
    message:
      'voxd is already rendering %s /v1/synthesize requests with %s more waiting, its limit. Retry after the Retry-After seconds, or send fewer at a time.',
  },
  VOX_ERR_LISTEN_BUSY: {
    statusCode: 409,
    message:
      'The microphone is in use by %s and this listen asked not to wait (waitMs 0). Give it a waitMs to queue for the microphone, or end that listen with "vox stop" (POST /v1/stop).',
  },
  VOX_ERR_LISTEN_WAIT_EXPIRED: {
    statusCode: 409,
    message:
      'Waited %s ms (waitMs) for the microphone, held by %s, with %s listen(s) ahead; it did not come free. Listen again with a longer waitMs (at most 300000), or end that listen with "vox stop" (POST /v1/stop).',
  },
  VOX_ERR_RECORDER_MISSING: {
    statusCode: 503,
    message:
      'No recorder program: %s. Install alsa-utils (arecord) or sox (rec), or set listen.recorder, which every voxd reads: "vox daemon config set listen.recorder /ABSOLUTE/PATH".',
  },
  VOX_ERR_VAD_UNAVAILABLE: {
    statusCode: 503,
    message:
      'Silero VAD cannot be used: %s. Install its model (docs/talk-back.md, "Offline speech-to-text"), or set listen.vad to auto or energy ("vox daemon config set listen.vad auto").',
  },
  VOX_ERR_MIC_UNAVAILABLE: {
    statusCode: 503,
    message:
      'The microphone cannot be opened: %s. Check that a capture device exists and is not muted ("vox doctor" looks for one), or choose another recorder: "vox daemon config set listen.recorder /ABSOLUTE/PATH".',
  },
  VOX_ERR_RECORDER_FAILED: {
    statusCode: 500,
    message:
      'The recorder stopped during the listen: %s. The audio captured so far is kept (audioPath); check the microphone and the logs in VOX_HOME/logs.',
  },
  VOX_ERR_TRANSCRIBER_UNREACHABLE: {
    statusCode: 502,
    message:
      'The transcriber at %s cannot be reached (%s). Start it, or fix transcriber.url ("vox daemon config set transcriber.url URL"); the recording is kept (audioPath).',
  },
  VOX_ERR_TRANSCRIBER_AUTH: {
    statusCode: 502,
    message:
      'The transcriber refused the key (HTTP %s). Set TRANSCRIBER_API_KEY (environment or VOX_HOME/keys.env) to a valid key; the recording is kept (audioPath).',
  },
  VOX_ERR_TRANSCRIBER_TOO_LARGE: {
    statusCode: 502,
    message:
      "The transcriber refused the recording as too large (HTTP 413, %s bytes). Listen for less time (maxSeconds), or raise the server's upload limit; the recording is kept (audioPath).",
  },
  VOX_ERR_TRANSCRIBER_TIMEOUT: {
    statusCode: 504,
    message:
      'The transcriber did not answer within %s ms. Check that it runs and is not overloaded, or raise transcriber.timeoutMs; the recording is kept (audioPath).',
  },
  VOX_ERR_RECOGNIZER_UNAVAILABLE: {
    statusCode: 503,
    message: 'The local recognizer cannot run: %s. To fix: %s; the recording is kept (audioPath).',
  },
  VOX_ERR_RECOGNIZER_FAILED: {
    statusCode: 500,
    message:
      'The local recognizer failed on this recording: %s. Listen again; if it fails again, %s; the recording is kept (audioPath).',
  },
  VOX_ERR_TRANSCRIBER_FAILED: {
    statusCode: 502,
    message:
      "The transcriber failed: %s. Check transcriber.url and transcriber.model, and the server's own log; the recording is kept (audioPath).",
  },
  VOX_ERR_INTERNAL: {
    statusCode: 500,
    message: 'Internal error in voxd: %s. Please report it with the lines around it in VOX_HOME/logs.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type WireErrorCode = keyof typeof WIRE_ERRORS;

/** The JSON body of every error response. */
export interface WireError {
  code: WireErrorCode;
  message: string;
  statusCode: number;
}

/** Fill a message template's `%s` slots in order. */
export function formatMessage(template: string, args: ReadonlyArray<string | number>): string {
  let i = 0;
  return template.replace(/%s/g, () => (i < args.length ? String(args[i++]) : '%s'));
}

export function wireError(code: WireErrorCode, ...args: Array<string | number>): WireError {
  const spec: ErrorSpec = WIRE_ERRORS[code];
  return { code, message: formatMessage(spec.message, args), statusCode: spec.statusCode };
}
