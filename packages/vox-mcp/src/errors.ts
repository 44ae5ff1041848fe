/**
 * Errors that happen in the client and are never sent on the wire (the MCP
 * SDK keeps ProtocolError and SdkError apart the same way). Wire codes from
 * voxd pass through unchanged. docs/errors.md documents both.
 */
export const CLIENT_ERRORS = {
  VOX_ERR_CLIENT_DAEMON_UNREACHABLE: 'voxd is not answering and could not be started (or autostart is off).',
  VOX_ERR_CLIENT_DAEMON_START_FAILED: 'vox started voxd but it did not answer in time.',
  VOX_ERR_CLIENT_DAEMON_EXITED: "vox started voxd and voxd exited before it listened; the message is voxd's own.",
  VOX_ERR_CLIENT_DAEMON_STOPPED:
    'voxd was stopped by request ("vox daemon stop") while the call waited; it did not start another.',
  VOX_ERR_CLIENT_STATE_FILE:
    'A file in VOX_HOME (the token) is not what voxd writes, and voxd refused the call for it.',
  VOX_ERR_CLIENT_NOT_VOXD:
    "What answers on voxd's port (or at the port voxd.json names) is not voxd: no x-voxd-version header, or not a voxd answer.",
  VOX_ERR_CLIENT_CONFIG_INVALID: "The project's .vox/config.md is invalid.",
  VOX_ERR_CLIENT_USAGE: 'Bad flags, arguments or environment variables.',
  VOX_ERR_CLIENT_NO_TEXT: 'There was no text to speak.',
  VOX_ERR_CLIENT_MODEL_UNKNOWN:
    'vox voices: the name is not in the voice model catalogue (or not installed, for remove).',
  VOX_ERR_CLIENT_MODEL_UNVERIFIED:
    'vox voices install: the catalogue pins no checksum for this model, and --unverified was not given.',
  VOX_ERR_CLIENT_MODEL_CHECKSUM: "vox voices install: the archive's SHA-256 is not the one the catalogue pins.",
  VOX_ERR_CLIENT_MODEL_ARCHIVE:
    "vox voices install: the archive is damaged, not a .tar.bz2, or does not hold the model's files.",
  VOX_ERR_CLIENT_MODEL_TOO_LARGE:
    'vox voices install: the download, or what the archive unpacks to, is larger than vox accepts for this model (or the archive holds too many entries).',
  VOX_ERR_CLIENT_MODEL_LICENCE: "vox voices install: the voice's licence is not free and was not accepted.",
  VOX_ERR_CLIENT_DOWNLOAD_FAILED:
    'vox voices install: the download failed (HTTP error, or the connection kept being cut).',
  VOX_ERR_CLIENT_SETUP_CONFLICT:
    'vox setup: a file that is not a link vox made is where a link goes, the directory cannot hold links, or a bin file is missing.',
  VOX_ERR_CLIENT_SETUP_CLAUDE_FAILED: 'vox setup: a claude plugin command failed or did not answer in time.',
  VOX_ERR_CLIENT_DISK_FULL: "vox voices install: no room to write the download or the model's files.",
  VOX_ERR_CLIENT_REMOTE_DOWN:
    'The link to voxd on another host (vox remote) is down, and the call was not a speak request that could be spooled.',
  VOX_ERR_CLIENT_REMOTE_TOKEN:
    'voxd on the other host refused the token that vox remote connect fetched, or the remote gave none.',
  VOX_ERR_CLIENT_REMOTE_VERSION: 'vox remote connect: the other host runs a different vox version.',
  VOX_ERR_CLIENT_REMOTE_SPOOL_FULL:
    'The link to voxd on another host is down and the spool of speech waiting for it is full.',
  VOX_ERR_CLIENT_REMOTE_SSH: 'vox remote connect: ssh to the other host failed (or what runs there is not vox).',
  VOX_ERR_CLIENT_REMOTE_LINKED:
    'vox remote connect: another vox remote connect already keeps the link of this VOX_HOME.',
} as const;

export type ClientErrorCode = keyof typeof CLIENT_ERRORS;

export class ClientError extends Error {
  readonly code: ClientErrorCode;
  constructor(code: ClientErrorCode, message: string) {
    super(message);
    this.name = 'ClientError';
    this.code = code;
  }
}

// The errors below carry no catalogue code: callers tell them apart by the
// name or code Node gives its own (AbortError, ETIMEDOUT), and a JSON-RPC
// error's code is the protocol's. Each is a class so that none is an ad hoc
// Error with properties glued on.

/** A call given up because its AbortSignal fired. */
export class AbortError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AbortError';
  }
}

/** No complete answer from voxd in time (its name stays "Error"). */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
}

/** A JSON-RPC error answer of `vox mcp` (mcp/protocol.ts): `rpcCode` is the response's error code. */
export class RpcError extends Error {
  readonly rpcCode: number;
  /** The JSON-RPC error's `data`, when the code's convention carries one (-32022: the supported versions). */
  readonly data?: unknown;
  constructor(rpcCode: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.rpcCode = rpcCode;
    if (data !== undefined) this.data = data;
  }
}
