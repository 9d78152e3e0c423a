import assert from 'node:assert/strict';

/** The operator's /metrics text (Prometheus exposition format). */
export async function scrapeMetrics(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${String(port)}/metrics`);
  assert.equal(response.status, 200);
  return response.text();
}

/** The value of the first sample of `name` whose labels include every one of `labels`. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gmu'))) {
    const found = match[1] ?? '';
    if (Object.entries(labels).every(([key, value]) => found.includes(`${key}="${value}"`)))
      return Number(match[2]);
  }
  return undefined;
}
