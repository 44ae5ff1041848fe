/** "Did you mean": the closest known name to a likely typo. Shared by the config readers and the CLI. */

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** Lower case, letters and digits only: `Log_Level` and `loglevel` compare equal. */
export function foldName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * The candidate closest to `name` when it is close enough to be a typo (1 edit
 * for up to 3 characters, 2 up to 6, else 3), after checking `synonyms` (folded
 * name -> candidate). Undefined when nothing is close.
 */
export function closestName<T extends string>(name: string, candidates: readonly T[], synonyms: Readonly<Record<string, T>> = {}): T | undefined {
  const folded = foldName(name);
  if (Object.hasOwn(synonyms, folded)) return synonyms[folded];
  let best: T | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(folded, foldName(c));
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const limit = folded.length <= 3 ? 1 : folded.length <= 6 ? 2 : 3;
  return bestDistance <= limit ? best : undefined;
}
