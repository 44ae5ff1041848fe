/**
 * Errors that happen in the client and are never sent on the wire (the MCP
 * SDK keeps ProtocolError and SdkError apart the same way). Wire codes from
 * voxd pass through unchanged. docs/errors.md documents both.
 */
export const CLIENT_ERRORS = {
  VOX_ERR_CLIENT_DAEMON_UNREACHABLE: 'voxd is not answering and could not be started (or autostart is off).',
  VOX_ERR_CLIENT_DAEMON_START_FAILED: 'vox started voxd but it did not answer in time.',
  VOX_ERR_CLIENT_DAEMON_EXITED: 'vox started voxd and voxd exited before it listened; the message is voxd\'s own.',
  VOX_ERR_CLIENT_NOT_VOXD: 'What answers on voxd\'s port (or at the port voxd.json names) is not voxd: no x-voxd-version header, or not a voxd answer.',
  VOX_ERR_CLIENT_CONFIG_INVALID: 'The project\'s .vox/config.md is invalid.',
  VOX_ERR_CLIENT_USAGE: 'Bad flags, arguments or environment variables.',
  VOX_ERR_CLIENT_NO_TEXT: 'There was no text to speak.',
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
