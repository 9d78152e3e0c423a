/**
 * go-yaml's rules for plain scalars, tags and merge keys, as kaddon follows them
 * (docs/architecture.md "YAML"), in one table. Both readers type scalars by it through
 * plain-scalar.ts (yaml.ts through the `yaml` library, yaml-fast-load.ts through js-yaml) and name
 * tags and the merge key from it, so that they read the same text as the same values; the printer
 * (go-yaml-scalar.ts) quotes by it what go-yaml v2 would read as another type.
 */
export const GO_YAML_RULES = {
  /** go-yaml v3's resolve table (its resolve.go), which kaddon reads by. */
  v3: {
    nulls: ['', '~', 'null', 'Null', 'NULL'],
    trues: ['true', 'True', 'TRUE'],
    falses: ['false', 'False', 'FALSE'],
    /** Read as floats JSON cannot hold. */
    nans: ['.nan', '.NaN', '.NAN'],
    infinities: ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'],
    negativeInfinities: ['-.inf', '-.Inf', '-.INF'],
    /** Only text starting with one of these can be anything but a string. */
    hints: /^[-+0-9yYnNtTfFoO~.]/,
    /** A float written from its dot (`.5`), underscores only between digits. */
    dotFloat: /^\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?$/,
    /** Go's strconv.ParseInt and ParseUint with base 0 (prefixes 0x, 0o, 0b, and 0 for octal), tried with underscores removed. */
    integer: /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]+)|([1-9][0-9]*|0))$/,
    /** yamlStyleFloat, tried with underscores removed. */
    float: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/,
    /**
     * parseTimestamp's forms: `2006-1-2`, `2006-1-2T15:4:5.999999999Z07:00`, the same with a
     * lower-case `t`, and `2006-1-2 15:4:5.999999999` in UTC.
     */
    timestamp:
      /^(\d{4})-(\d\d?)-(\d\d?)(?:(?:([Tt])|( ))(\d\d?):(\d\d?):(\d\d?)(?:\.(\d+))?(Z|[-+]\d\d:\d\d)?)?$/,
    /** The types a scalar may be tagged with explicitly (`!!int 1`), besides `!!str`. */
    explicitTypes: ['int', 'float', 'bool', 'null', 'timestamp', 'binary'],
  },
  /** What go-yaml v2, which kaddon prints by, also reads plain as another type: YAML 1.1's words and numbers. */
  v2: {
    trues: ['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON'],
    falses: ['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF'],
    /** isBase60Float: `1:20` is a sexagesimal number. */
    base60Float: /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/,
  },
  /** The plain key that merges maps into its mapping. */
  mergeKey: '<<',
  /** Where a tag's name is: `!!int` is `tag:yaml.org,2002:int`. */
  tagPrefix: 'tag:yaml.org,2002:',
} as const;
