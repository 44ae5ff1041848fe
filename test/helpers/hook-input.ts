/** The input Claude Code passes an mcp_tool hook, made from a hook payload. */

/** Claude Code's substitution: `${a.b}` from the hook input; missing or null is "", objects are JSON, the rest String(). */
export function substitute(input: Record<string, string>, payload: Record<string, unknown>): Record<string, string> {
  const at = (path: string): unknown =>
    path
      .split('.')
      .reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), payload);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) {
    out[k] = v.replace(/\$\{([a-zA-Z_][a-zA-Z0-9_.]*)\}/g, (_, path: string) => {
      const value = at(path);
      if (value === undefined || value === null) return '';
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
    });
  }
  return out;
}
