import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/**
 * `npm run bench:chart -- --operator FILE --build FILE[,FILE] [--out docs/performance.svg]`: draws
 * docs/performance.md's chart from the saved output of `npm run bench:operator` (first convergence
 * against the number of modules) and `npm run bench` (build time against the number of objects,
 * kaddon against kubectl kustomize), on log–log axes: a straight line of slope 1 is linear growth.
 */
const { values } = parseArgs({
  options: {
    operator: { type: 'string' },
    build: { type: 'string' },
    out: { type: 'string', default: 'docs/performance.svg' },
  },
});
if (!values.operator || !values.build) throw new Error('give --operator FILE and --build FILE');

interface Point {
  readonly x: number;
  readonly y: number;
}
interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: readonly Point[];
}

/** The text of one `## ` section of a benchmark's output, from its title on. */
function section(text: string, title: string): string {
  const start = text.indexOf(`## ${title}`);
  if (start === -1) return '';
  const end = text.indexOf('\n## ', start + 3);
  return text.slice(start, end === -1 ? undefined : end);
}

/** `| modules | enabled | releases | seconds to converge | …` rows of bench:operator. */
function convergence(text: string): Point[] {
  const rows = section(text, 'Operator: spawn to first convergence');
  return [...rows.matchAll(/^\| (\d+) \| \d+ \| [\d-]+ \| ([\d.]+) \|/gmu)].map((match) => ({
    x: Number(match[1]),
    y: Number(match[2]),
  }));
}

/** `| modules | Kustomizations | objects | Ready | Flux s | …` rows of bench:operator --flux. */
function fluxConvergence(text: string): Point[] {
  const rows = section(text, 'Peer: Flux');
  return [...rows.matchAll(/^\| (\d+) \| \d+ \| \d+ \| (?:\d+ \| )?([\d.]+) \|/gmu)].map((match) => ({
    x: Number(match[1]),
    y: Number(match[2]),
  }));
}

/**
 * The timing rows of `npm run bench` outputs: `objects  kubectl s  kaddon s …`, or without kubectl
 * `objects  kaddon s …` (when it is not installed, or too slow at that size).
 */
function builds(texts: readonly string[]): { kubectl: Point[]; kaddon: Point[] } {
  const kubectl = new Map<number, number>();
  const kaddon = new Map<number, number>();
  for (const text of texts) {
    const withKubectl = /^objects\s+kubectl s/mu.test(text);
    const table = text.slice(text.search(/^objects\s/mu), text.search(/^growth between sizes/mu));
    for (const match of table.matchAll(/^\s*(\d+)\s+([\d.]+|failed)\s+([\d.]+|failed)/gmu)) {
      const x = Number(match[1]);
      const first = Number(match[2]);
      if (withKubectl) {
        if (match[2] !== 'failed') kubectl.set(x, first);
        if (match[3] !== 'failed') kaddon.set(x, Number(match[3]));
      } else if (match[2] !== 'failed') kaddon.set(x, first);
    }
  }
  const points = (map: Map<number, number>): Point[] =>
    [...map].sort((a, b) => a[0] - b[0]).map(([x, y]) => ({ x, y }));
  return { kubectl: points(kubectl), kaddon: points(kaddon) };
}

const WIDTH = 420;
const HEIGHT = 320;
const MARGIN = { left: 56, right: 16, top: 36, bottom: 44 };

function panel(title: string, xLabel: string, series: readonly Series[], offsetX: number): string {
  const all = series.flatMap((line) => line.points);
  const logs = (values: readonly number[]): [number, number] => [
    Math.floor(Math.log10(Math.min(...values))),
    Math.ceil(Math.log10(Math.max(...values))),
  ];
  const [x0, x1] = logs(all.map((point) => point.x));
  const [y0, y1] = logs(all.map((point) => point.y));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x: number): number =>
    offsetX + MARGIN.left + ((Math.log10(x) - x0) / Math.max(x1 - x0, 1)) * plotW;
  const sy = (y: number): number =>
    MARGIN.top + plotH - ((Math.log10(y) - y0) / Math.max(y1 - y0, 1)) * plotH;
  const parts: string[] = [
    `<text x="${String(offsetX + WIDTH / 2)}" y="20" text-anchor="middle" font-weight="bold">${title}</text>`,
    `<text x="${String(offsetX + WIDTH / 2)}" y="${String(HEIGHT - 8)}" text-anchor="middle">${xLabel}</text>`,
    `<text transform="translate(${String(offsetX + 14)},${String(HEIGHT / 2)}) rotate(-90)" text-anchor="middle">seconds</text>`,
  ];
  for (let power = x0; power <= x1; power++) {
    const x = sx(10 ** power);
    parts.push(
      `<line x1="${x.toFixed(1)}" y1="${String(MARGIN.top)}" x2="${x.toFixed(1)}" y2="${String(MARGIN.top + plotH)}" stroke="#ddd"/>`,
    );
    parts.push(
      `<text x="${x.toFixed(1)}" y="${String(MARGIN.top + plotH + 16)}" text-anchor="middle" font-size="11">${String(10 ** power)}</text>`,
    );
  }
  for (let power = y0; power <= y1; power++) {
    const y = sy(10 ** power);
    parts.push(
      `<line x1="${String(offsetX + MARGIN.left)}" y1="${y.toFixed(1)}" x2="${String(offsetX + MARGIN.left + plotW)}" y2="${y.toFixed(1)}" stroke="#ddd"/>`,
    );
    parts.push(
      `<text x="${String(offsetX + MARGIN.left - 6)}" y="${(y + 4).toFixed(1)}" text-anchor="end" font-size="11">${String(Number((10 ** power).toPrecision(1)))}</text>`,
    );
  }
  for (const [index, line] of series.entries()) {
    if (line.points.length === 0) continue;
    const path = line.points.map((point) => `${sx(point.x).toFixed(1)},${sy(point.y).toFixed(1)}`).join(' ');
    parts.push(`<polyline points="${path}" fill="none" stroke="${line.color}" stroke-width="2"/>`);
    for (const point of line.points)
      parts.push(
        `<circle cx="${sx(point.x).toFixed(1)}" cy="${sy(point.y).toFixed(1)}" r="3" fill="${line.color}"><title>${line.name}: ${String(point.x)} → ${String(point.y)} s</title></circle>`,
      );
    const legendY = MARGIN.top + 8 + index * 16;
    parts.push(
      `<rect x="${String(offsetX + MARGIN.left + 8)}" y="${String(legendY - 8)}" width="10" height="10" fill="${line.color}"/>`,
    );
    parts.push(
      `<text x="${String(offsetX + MARGIN.left + 22)}" y="${String(legendY + 1)}" font-size="12">${line.name}</text>`,
    );
  }
  return parts.join('\n');
}

const operatorText = readFileSync(values.operator, 'utf8');
const operator = convergence(operatorText);
const flux = fluxConvergence(operatorText);
const build = builds(values.build.split(',').map((file) => readFileSync(file, 'utf8')));
if (operator.length === 0 || build.kaddon.length === 0)
  throw new Error('no figures found in the given files');
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${String(WIDTH * 2)}" height="${String(HEIGHT)}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
${panel(
  'First convergence',
  'modules',
  [
    { name: 'kaddon operator', color: '#1f77b4', points: operator },
    ...(flux.length > 0 ? [{ name: 'Flux kustomize-controller', color: '#ff7f0e', points: flux }] : []),
  ],
  0,
)}
${panel(
  'Build (kustomize)',
  'objects',
  [
    { name: 'kaddon kustomize', color: '#1f77b4', points: build.kaddon },
    { name: 'kubectl kustomize', color: '#ff7f0e', points: build.kubectl },
  ],
  WIDTH,
)}
</svg>
`;
writeFileSync(values.out, svg);
console.log(`wrote ${values.out}`);
