/**
 * The words of the policy's announcements (policy.ts): an agent's message
 * with its name replaced by the project's, a tool's spoken name, a failure
 * in words. Pure.
 */

/** "Claude needs your permission to use Bash" → "api needs your permission to use Bash". */
export function permissionText(project: string, message: string): string {
  const m = /^claude(?: code)?\s+needs\s+your\s+permission\b\s*(.*)$/is.exec(message);
  if (m) {
    const rest = m[1]!.replace(/[.!\s]+$/, '');
    if (!rest) return `${project} needs your permission`;
    return /^(?:to|for)\b/i.test(rest)
      ? `${project} needs your permission ${rest}`
      : `${project} needs your permission: ${rest}`;
  }
  if (!message) return `${project} needs your permission`;
  return `${project} needs your permission: ${message}`;
}

/** Claude Code's message with "Claude" replaced by the project's name, or prefixed by it. */
export function noticeText(project: string, message: string): string {
  if (!message) return `${project} needs your attention`;
  const m = /^claude(?: code)?\b\s*(.*)$/is.exec(message);
  if (m && m[1]) return `${project} ${m[1]}`;
  return `${project}: ${message}`;
}

/**
 * The tool named in a permission message: "Claude needs your permission to
 * use Bash" → "Bash". Undefined when the message names none.
 */
export function permissionTool(message: string): string | undefined {
  return /\bpermission\s+to\s+use\s+(\S+?)[.!]?\s*$/i.exec(message)?.[1];
}

/**
 * A tool's spoken name: built-ins as they are ("Bash"), MCP tools as
 * "speak from vox" rather than "mcp__plugin_vox_vox__speak".
 */
export function spokenToolName(tool: string): string {
  const m = /^mcp__(.+?)__(.+)$/.exec(tool);
  if (!m) return tool;
  const server = m[1]!.replace(/^plugin_([^_]+)_.*$/, '$1');
  return `${m[2]!.replace(/_/g, ' ')} from ${server.replace(/_/g, ' ')}`;
}

/**
 * StopFailure's `error` in words: every kind Claude Code 2.1.332 sends (the
 * enum of its StopFailure schema, found with `strings` on the binary) but
 * `unknown`, which gets the plain "the request failed"; then the API's own
 * error types, which older versions passed through.
 */
export const FAILURE_WORDS: Readonly<Record<string, string>> = Object.freeze({
  authentication_failed: 'authentication failed',
  oauth_org_not_allowed: 'the organization does not allow this login',
  account_on_hold: 'the account is on hold',
  verification_required: 'the account needs verification',
  billing_error: 'a billing problem',
  rate_limit: 'rate limited',
  overloaded: 'the API is overloaded',
  invalid_request: 'the API rejected the request as invalid',
  model_not_found: 'model not found',
  server_error: 'a server error',
  max_output_tokens: 'the reply was too long',
  cloud_credential_error: 'the cloud credentials were refused',
  rate_limit_error: 'rate limited',
  overloaded_error: 'the API is overloaded',
  authentication_error: 'authentication failed',
  invalid_request_error: 'the API rejected the request as invalid',
  api_error: 'a server error',
});

/** "shop: the request failed, the API is overloaded". */
export function failureText(project: string, error: string): string {
  const words = Object.hasOwn(FAILURE_WORDS, error) ? FAILURE_WORDS[error] : undefined;
  return words ? `${project}: the request failed, ${words}` : `${project}: the request failed`;
}
