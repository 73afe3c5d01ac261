// The nearest of some names to a misspelt one, for "did you mean …?" on unknown settings.

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions from a to b. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `name`, if it is close enough to be a likely typo: at most a third of the
 * name's length away (so `kafkastore.bootstrap.server` finds its `s`, and `foo` finds nothing). Ties
 * go to the earlier candidate.
 */
export function nearest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.floor(name.length / 3) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
