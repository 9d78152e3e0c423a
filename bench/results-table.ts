/** Median seconds for one tree size; a figure is undefined when its tool is absent or failed. */
export interface SizeTiming {
  readonly objects: number;
  readonly kubectl: number | undefined;
  readonly kaddon: number | undefined;
  readonly inProcess: number | undefined;
}

interface Column {
  readonly title: string;
  readonly kubectlOnly?: boolean;
  readonly cell: (row: SizeTiming, previous: SizeTiming | undefined) => string;
}

const seconds = (value: number | undefined): string => (value === undefined ? 'failed' : value.toFixed(3));
const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined ? '-' : `${(a / b).toFixed(2)}x`;
const perObject = (value: number | undefined, objects: number): string =>
  value === undefined ? '-' : ((value * 1e6) / objects).toFixed(0);

const timingColumns: readonly Column[] = [
  { title: 'objects', cell: (row) => String(row.objects) },
  { title: 'kubectl s', kubectlOnly: true, cell: (row) => seconds(row.kubectl) },
  { title: 'kaddon s', cell: (row) => seconds(row.kaddon) },
  { title: 'in-process s', cell: (row) => seconds(row.inProcess) },
  { title: 'kubectl/kaddon', kubectlOnly: true, cell: (row) => ratio(row.kubectl, row.kaddon) },
  { title: 'kubectl/in-process', kubectlOnly: true, cell: (row) => ratio(row.kubectl, row.inProcess) },
  { title: 'kubectl µs/obj', kubectlOnly: true, cell: (row) => perObject(row.kubectl, row.objects) },
  { title: 'kaddon µs/obj', cell: (row) => perObject(row.kaddon, row.objects) },
  { title: 'in-process µs/obj', cell: (row) => perObject(row.inProcess, row.objects) },
];

/** Time factors between consecutive sizes: linear growth shows the same factor as the objects. */
const growthColumns: readonly Column[] = [
  { title: 'objects', cell: (row, previous) => `${String(previous?.objects)} -> ${String(row.objects)}` },
  { title: 'objects x', cell: (row, previous) => ratio(row.objects, previous?.objects) },
  { title: 'kubectl x', kubectlOnly: true, cell: (row, previous) => ratio(row.kubectl, previous?.kubectl) },
  { title: 'kaddon x', cell: (row, previous) => ratio(row.kaddon, previous?.kaddon) },
  { title: 'in-process x', cell: (row, previous) => ratio(row.inProcess, previous?.inProcess) },
];

export function formatTimingTable(rows: readonly SizeTiming[], withKubectl: boolean): string {
  return formatColumns(selectColumns(timingColumns, withKubectl), rows, 0);
}

export function formatGrowthTable(rows: readonly SizeTiming[], withKubectl: boolean): string {
  return formatColumns(selectColumns(growthColumns, withKubectl), rows, 1);
}

function selectColumns(columns: readonly Column[], withKubectl: boolean): Column[] {
  return columns.filter((column) => withKubectl || column.kubectlOnly !== true);
}

/** Right-aligned columns; rows before `from` only serve as the previous row. */
function formatColumns(columns: readonly Column[], rows: readonly SizeTiming[], from: number): string {
  const cells = [columns.map((column) => column.title)];
  for (let index = from; index < rows.length; index++) {
    const row = rows[index]!;
    cells.push(columns.map((column) => column.cell(row, rows[index - 1])));
  }
  const widths = columns.map((_, column) => Math.max(...cells.map((line) => line[column]!.length)));
  return cells
    .map((line) => line.map((cell, column) => cell.padStart(widths[column]!)).join('  '))
    .join('\n');
}
