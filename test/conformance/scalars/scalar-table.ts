/**
 * The table of YAML scalars whose reading and printing kaddon must share with kustomize: each is
 * written into a resource, built with `kubectl kustomize`, and what kubectl printed for it is kept
 * in recorded.json (record-scalar-table.ts); scalar-table.test.ts builds the same with kaddon.
 */

/** Plain scalars: how go-yaml v3 types them, and how the result prints. */
const NUMBERS = [
  '0',
  '00',
  '08',
  '0755',
  '-0755',
  '0o17',
  '0O17',
  '+0o17',
  '0o',
  '0x1F',
  '0X1f',
  '0x_1F',
  '-0x1F',
  '+0x1F',
  '0x',
  '0b101',
  '0B11',
  '-0b101',
  '0b',
  '0b1_01',
  '1_000',
  '1__0',
  '_1',
  '1_',
  '1_000_000.5',
  '12',
  '+12',
  '-12',
  '-0',
  '+0',
  '0001',
  '1.0',
  '1.',
  '.5',
  '-.5',
  '+.5',
  '.5_0',
  '1_0.5',
  '0.1_5',
  '08.5',
  '09e2',
  '0755.5',
  '00.5',
  '1e3',
  '1E3',
  '1e+3',
  '1e-7',
  '1.5e3',
  '1.5E-3',
  '1e1_0',
  '1e',
  '1e+',
  'e3',
  '1234567.5',
  '123456.5',
  '0.0001',
  '0.00001',
  '1e21',
  '1e20',
  '1e400',
  '-1e400',
  '1e-400',
  '9223372036854775807',
  '-9223372036854775808',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551615',
  '18446744073709551616',
  '0xFFFFFFFFFFFFFFFF',
  '12:30',
  '1:20',
  '190:20:30.15',
  '0x1p3',
  '1.2.3',
  'v1',
  '-',
  '+',
  '.',
  '--1',
  '+-1',
];

const WORDS = [
  'Inf',
  'inf',
  '.inf',
  '-.inf',
  '+.inf',
  '.Inf',
  '.INF',
  '.nan',
  '.NaN',
  'NaN',
  '~',
  'null',
  'Null',
  'NULL',
  'nULL',
  'true',
  'True',
  'TRUE',
  'tRUE',
  'false',
  'yes',
  'Yes',
  'no',
  'on',
  'off',
  'On',
  'y',
  'n',
  'Y',
  'N',
  '<<',
  '=',
];

const TIMESTAMPS = [
  '2001-12-14',
  '2001-1-1',
  '2001-02-30',
  '2000-02-29',
  '0001-01-01',
  '2001-12-14t21:59:43.10-05:00',
  '2001-12-14T21:59:43Z',
  '2001-12-14T21:59:43.123456789012Z',
  '2001-12-14T21:59:43+00:00',
  '2001-12-14T21:59:43',
  '2001-12-14 21:59:43.10',
  '2001-12-14 21:59:43.10 -5',
  '2001-12-14T25:00:00Z',
  '2001-12-14T1:2:3Z',
  '12-14',
  '20011-12-14',
];

/** Strings, double-quoted in the input: how go-yaml v2 chooses their style and breaks their lines. */
const STRINGS = [
  'yes',
  'on',
  '0o17',
  '08',
  '1e400',
  '0x1p3',
  '<<',
  '=',
  '12:30',
  '2001-12-14',
  '',
  ' x',
  'x ',
  'a\n\n',
  '\n',
  'a\n',
  'a\nb',
  ' a\nb',
  'a \nb',
  'a\n b',
  'tab\there',
  'a: b',
  'a:b',
  '#x',
  'a #b',
  'a#b',
  '- x',
  '-x',
  '? x',
  ':x',
  "it's",
  "'",
  '"',
  '\\',
  '---',
  '--- x',
  '...',
  '@x',
  '%x',
  '`x',
  '!x',
  '&x',
  '*x',
  '|x',
  '>x',
  '[x',
  ']x',
  '{x',
  'x}',
  'x,y',
  'é ü',
  'emoji \u{1F600}',
  '\u0085',
  'x\u2028y',
  'a\r\nb',
  '\ufeffx',
  '\u00a0x',
  '\u0007',
  'x\n  }\n \n# c',
  'a '.repeat(50) + '\n  }\n \n# c',
  'word '.repeat(30).trim(),
  `'${'quoted '.repeat(14).trim()}'`,
  `tab\t${'more '.repeat(20).trim()}`,
  'a  b  c  d  e  f  g  h  i  j  k  l  m  n  o  p  q  r  s  t  u  v  w  x  y  z  a  b  c  d',
  `${'x'.repeat(100)} ${'y'.repeat(10)}`,
  `${'line '.repeat(25)}\nshort`,
  '1111111111111111111111111111111111111111111111111111111111111111111111',
];

/** One row: the scalar as it stands in the YAML input. */
export const SCALAR_TABLE: readonly string[] = [
  ...NUMBERS,
  ...WORDS,
  ...TIMESTAMPS,
  ...STRINGS.map(doubleQuoted),
];

/**
 * A string as a YAML double-quoted scalar. Characters YAML 1.1 counts as line breaks (NEL, LS, PS)
 * and the byte-order mark are escaped: raw, go-yaml would fold or drop them before printing.
 */
function doubleQuoted(text: string): string {
  return JSON.stringify(text).replace(
    /[\u0085\u2028\u2029\ufeff]/g,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/** A resource holding one scalar of the table per key, `s000` onwards. */
export function tableResource(rows: readonly { key: string; yaml: string }[]): string {
  const lines = rows.map(({ key, yaml }) => `  ${key}: ${yaml}`);
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scalars\ndata:\n${lines.join('\n')}\n`;
}

export function rowKey(index: number): string {
  return `s${String(index).padStart(3, '0')}`;
}

/**
 * What kubectl printed for one key of a built table: the text after `  sNNN:`, with the lines of a
 * block scalar that follow it.
 */
export function printedValue(output: string, key: string): string | undefined {
  const lines = output.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`  ${key}:`));
  if (start === -1) return undefined;
  let end = start + 1;
  while (end < lines.length && (lines[end]?.startsWith('   ') || lines[end] === '')) end++;
  return [lines[start]?.slice(key.length + 3), ...lines.slice(start + 1, end)].join('\n');
}
