/**
 * The format of VOX_HOME/keys.env, read by voxd (for the cloud keys) and by
 * `vox doctor` (for their names only): `NAME=value`, optional `export `,
 * optional single or double quotes, `#` comments and blank lines.
 */
export function parseKeysFile(text: string): { values: Map<string, string>; badLines: number[] } {
  const values = new Map<string, string>();
  const badLines: number[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) {
      // 1-based line numbers only, never the contents: a bad line may hold a key.
      badLines.push(i + 1);
      return;
    }
    let value = m[2]!;
    const q = value[0];
    if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, '').trim();
    if (value) values.set(m[1]!, value);
  });
  return { values, badLines };
}
