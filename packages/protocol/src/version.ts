/** The vox release. voxd and vox compare theirs to warn about a stale daemon. */
export const VERSION = '0.1.0';

/** -1, 0 or 1 as version `a` is older than, equal to or newer than `b` (numeric major.minor.patch; a leading v and pre-release tags are ignored). */
export function compareVersions(a: string, b: string): number {
  // The usual case on the hot path (a voxd of this very version) costs no parsing.
  if (a === b) return 0;
  // Up to the first "-" or "+" (cut by hand: a first String.split with a RegExp costs `vox say` a quarter of a millisecond).
  const core = (v: string) => {
    const s = v.startsWith('v') ? v.slice(1) : v;
    const ends = [s.indexOf('-'), s.indexOf('+')].filter((i) => i >= 0);
    return ends.length ? s.slice(0, Math.min(...ends)) : s;
  };
  const parse = (v: string) =>
    core(v)
      .split('.')
      .map((x) => Number.parseInt(x, 10) || 0);
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}
