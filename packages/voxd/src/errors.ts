/** Turning thrown errors into wire errors. Codes and messages live in @vox/protocol. */
import {
  MAX_BODY_BYTES,
  MAX_TEXT_CHARS,
  VISIBLE_PATTERN,
  wireError,
  WIRE_ERRORS,
  type WireError,
  type WireErrorCode,
} from '@vox/protocol';

/**
 * A message of the error's own in place of the catalogue's sentence: for a
 * detail that is read as it is (a speech outcome's reason, the fallback's
 * account of what failed), under the catalogue's code and status.
 */
export interface OwnMessage {
  message: string;
}

export class VoxError extends Error {
  readonly code: WireErrorCode;
  readonly statusCode: number;
  constructor(code: WireErrorCode, ...args: Array<string | number> | [OwnMessage]) {
    const own = typeof args[0] === 'object' ? args[0].message : undefined;
    const w = wireError(code, ...(own === undefined ? (args as Array<string | number>) : []));
    super(own ?? w.message);
    this.code = code;
    this.statusCode = w.statusCode;
  }
  toWire(): WireError {
    return { code: this.code, message: this.message, statusCode: this.statusCode };
  }
}

/** Map anything thrown inside a request (ours, fastify's, ajv's) to a wire error. */
export function toWireError(err: unknown): WireError {
  const e = err as {
    code?: string;
    message?: string;
    statusCode?: number;
    validation?: Array<{ instancePath?: string; message?: string; params?: Record<string, unknown> }>;
    validationContext?: string;
  };
  if (e?.code && e.code in WIRE_ERRORS) {
    return {
      code: e.code as WireErrorCode,
      message: e.message ?? '',
      statusCode: WIRE_ERRORS[e.code as WireErrorCode].statusCode,
    };
  }
  if (e?.validation) {
    const v = e.validation[0];
    // Too much text is a 413, not a 400: the fix is "send less", not "fix the field". The limit is
    // the route's own (POST /v1/talk takes fewer characters than /v1/speak).
    if (v?.instancePath === '/text' && (v as { keyword?: string }).keyword === 'maxLength')
      return wireError('VOX_ERR_TEXT_TOO_LONG', Number(v.params?.limit ?? MAX_TEXT_CHARS));
    const name = (v?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.') || e.validationContext || 'body';
    if ((v as { keyword?: string })?.keyword === 'pattern' && v?.params?.pattern === VISIBLE_PATTERN)
      return wireError(
        'VOX_ERR_BODY_INVALID',
        `field "${name}" must be printable (no control, bidi, zero-width or other invisible character)`,
      );
    const field = v?.params?.additionalProperty
      ? `unknown field "${String(v.params.additionalProperty)}"`
      : v?.params?.missingProperty
        ? `missing field "${String(v.params.missingProperty)}"`
        : `field "${name}" ${v?.message ?? 'is invalid'}`;
    return wireError('VOX_ERR_BODY_INVALID', field);
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return wireError('VOX_ERR_BODY_INVALID_JSON', e.message ?? 'parse error');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return wireError('VOX_ERR_BODY_TOO_LARGE', MAX_BODY_BYTES);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return wireError('VOX_ERR_BODY_INVALID', 'Content-Type must be application/json');
  }
  if (err instanceof SyntaxError) return wireError('VOX_ERR_BODY_INVALID_JSON', err.message);
  if (e?.statusCode === 400) return wireError('VOX_ERR_BODY_INVALID', e.message ?? 'bad request');
  return wireError('VOX_ERR_INTERNAL', 'see the log for details');
}

/** Seconds a client has to send its whole request (headers and body); a `wait` response is not timed. */
export const REQUEST_TIMEOUT_SECONDS = 30;
/** Seconds a client has to send its request's headers; a connection that sends nothing is closed then. */
export const HEADERS_TIMEOUT_SECONDS = 10;
/** Seconds an idle keep-alive connection is kept open. */
export const IDLE_CONNECTION_SECONDS = 5;

/**
 * The raw HTTP response for a connection-level error (Node rejected the bytes
 * before any route saw them), in the same `{code, message, statusCode}` shape
 * as every other error.
 */
export function clientErrorResponse(err: NodeJS.ErrnoException, version: string): string {
  const w =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? wireError('VOX_ERR_HEADERS_TOO_LARGE')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? wireError('VOX_ERR_REQUEST_TIMEOUT', REQUEST_TIMEOUT_SECONDS)
        : wireError(
            'VOX_ERR_HTTP_MALFORMED',
            (err.code ?? 'parse error').replace(/^HPE_/, '').toLowerCase().replace(/_/g, ' '),
          );
  const body = JSON.stringify(w);
  const reason =
    w.statusCode === 431 ? 'Request Header Fields Too Large' : w.statusCode === 408 ? 'Request Timeout' : 'Bad Request';
  return `HTTP/1.1 ${w.statusCode} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nx-voxd-version: ${version}\r\nConnection: close\r\n\r\n${body}`;
}
