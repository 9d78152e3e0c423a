/**
 * `12m 30s`, `2h 5m`, `45s`: how long something lasted, for people — the largest two units, down
 * to seconds (Events' notes, notification messages).
 */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const parts = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor(seconds / 3600) % 24, 'h'],
    [Math.floor(seconds / 60) % 60, 'm'],
    [seconds % 60, 's'],
  ] as const;
  const first = parts.findIndex(([amount]) => amount > 0);
  if (first === -1) return '0s';
  return parts
    .slice(first, first + 2)
    .filter(([amount]) => amount > 0)
    .map(([amount, unit]) => `${String(amount)}${unit}`)
    .join(' ');
}
