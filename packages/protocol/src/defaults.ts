/** Default TCP port of voxd on 127.0.0.1. */
export const DEFAULT_PORT = 8421;
export const DEFAULT_HOST = '127.0.0.1';
/** Default duplicate window, in seconds. */
export const DEFAULT_DEDUP_SECONDS = 5;
/** Bounds of `once`, in seconds. */
export const MIN_ONCE_SECONDS = 1;
export const MAX_ONCE_SECONDS = 3600;
/** Longest text accepted by /v1/speak, in characters. Longer text gets a 413. */
export const MAX_TEXT_CHARS = 20_000;
/** Largest request body voxd reads, in bytes. */
export const MAX_BODY_BYTES = 256 * 1024;
/** Speech rate bounds, in words per minute. */
export const MIN_RATE_WPM = 80;
export const MAX_RATE_WPM = 500;
/** Chime signals and the duplicate window that applies to each, in seconds. */
export const CHIME_SIGNALS = ['done', 'prompt', 'error', 'attention'] as const;
export const CHIME_DEDUP_SECONDS = 5;
export const PRIORITIES = ['important', 'message', 'text', 'notification', 'progress'] as const;
/** Default `maxAgeMs` for `notification`: stale idle pings are noise. */
export const NOTIFICATION_MAX_AGE_MS = 30_000;
