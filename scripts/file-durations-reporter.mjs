// A node:test reporter for scripts/run-tests.mjs: one JSON line per test file, with the time its
// top-level tests and suites took together (they run one after another within a file).
export default async function* fileDurations(source) {
  const totals = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || file === undefined) continue;
    totals.set(file, (totals.get(file) ?? 0) + details.duration_ms);
  }
  for (const [file, ms] of totals) yield `${JSON.stringify({ file, ms })}\n`;
}
