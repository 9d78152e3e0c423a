import type { Ajv } from 'ajv';

/**
 * The string formats addon-operator's validator (go-openapi strfmt) knows and schemas commonly
 * use. Formats not listed here are not checked, as go-openapi ignores formats it does not know.
 */
const STRING_FORMATS: Readonly<Record<string, RegExp | ((text: string) => boolean)>> = {
  'date-time': (text) =>
    /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(?:\.\d+)?(?:[Zz]|[+-]\d\d:?\d\d)$/.test(text) &&
    !Number.isNaN(Date.parse(text)),
  date: (text) => /^\d{4}-\d\d-\d\d$/.test(text) && !Number.isNaN(Date.parse(text)),
  duration:
    /^(?:[-+]?(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h|d|w))+|P(?!$)(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?)$/,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  hostname:
    /^(?=.{1,253}$)[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/,
  ipv4: /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  ipv6: (text) => isIPv6(text),
  cidr: (text) => {
    const [address, bits, ...rest] = text.split('/');
    if (rest.length > 0 || address === undefined || bits === undefined || !/^\d{1,3}$/.test(bits))
      return false;
    const max = isIPv6(address) ? 128 : (STRING_FORMATS.ipv4 as RegExp).test(address) ? 32 : -1;
    return Number(bits) <= max;
  },
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  byte: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  password: () => true,
  binary: () => true,
};

function isIPv6(text: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.split('::').length > 2) return false;
  const groups = text.split(':');
  const last = groups[groups.length - 1] ?? '';
  const embedsV4 = last.includes('.');
  if (embedsV4 && !(STRING_FORMATS.ipv4 as RegExp).test(last)) return false;
  const count = groups.filter((g) => g !== '').length + (embedsV4 ? 1 : 0);
  const valid = groups.every(
    (g, i) => g === '' || /^[0-9a-fA-F]{1,4}$/.test(g) || (embedsV4 && i === groups.length - 1),
  );
  return valid && (text.includes('::') ? count < 8 : count === 8);
}

const NUMBER_FORMATS: Readonly<Record<string, (n: number) => boolean>> = {
  int32: (n) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  int64: (n) => Number.isInteger(n),
  float: (n) => Number.isFinite(n),
  double: (n) => Number.isFinite(n),
};

/** Registers the formats above on an Ajv instance. */
export function addValuesFormats(ajv: Ajv): void {
  for (const [name, check] of Object.entries(STRING_FORMATS)) {
    ajv.addFormat(name, { type: 'string', validate: check });
  }
  for (const [name, check] of Object.entries(NUMBER_FORMATS)) {
    ajv.addFormat(name, { type: 'number', validate: check });
  }
}
