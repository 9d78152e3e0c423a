/**
 * The name among `known` that `given` was most likely meant to be, for a "did you mean" hint: the
 * same name in another case, or the one fewest single-character edits away when that is at most a
 * third of its length (at least one edit). Undefined when none is that close.
 */
export function closestName(given: string, known: readonly string[]): string | undefined {
  const lower = given.toLowerCase();
  const sameLetters = known.find((name) => name.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(lower, name.toLowerCase());
    if (
      distance <= Math.max(1, Math.floor(name.length / 3)) &&
      (best === undefined || distance < best.distance)
    )
      best = { name, distance };
  }
  return best?.name;
}

/**
 * Edit distance over UTF-16 units where swapping two neighbours counts as one edit, as typing
 * mistakes go (optimal string alignment). The names compared are short.
 */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const above = rows[i - 1] ?? [];
      let distance = Math.min(
        (above[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (above[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        distance = Math.min(distance, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row.push(distance);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}
