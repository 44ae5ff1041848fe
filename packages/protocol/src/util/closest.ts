/**
 * "Did you mean …?": the one edit distance behind every suggestion (config
 * keys, vox's commands and flags). Shared by voxd and vox, so it stays tiny.
 */

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  let prev2: number[] = [];
  let prev: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      row.push(v);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `word`, when it is close enough to be a likely typo:
 * at most 1 edit for words of up to 3 characters, 2 up to 6, 3 beyond.
 * Case and the characters `fold` strips (default: none) are ignored.
 */
export function closest<T extends string>(
  word: string,
  candidates: readonly T[],
  fold: (s: string) => string = (s) => s.toLowerCase(),
): T | undefined {
  const w = fold(word);
  let best: T | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, fold(c));
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const limit = w.length <= 3 ? 1 : w.length <= 6 ? 2 : 3;
  return bestDistance <= limit ? best : undefined;
}
