import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import {
  configSection,
  EMPTY_CONFIG_VALUES,
  globalValues,
  mergeValues,
  moduleValues,
  ownerValuesKey,
  type ConfigValues,
  type StaticValues,
  type ValuesOwner,
} from '../core/values.ts';
import { applyValuesPatch } from '../core/values-patch-apply.ts';
import type { ValuesPatch } from '../core/values-patch.ts';
import type { ValuesLayer } from '../core/values-origin.ts';
import type { ValuesSchemas } from '../core/values-schema.ts';

/** What one owner's values are built from. */
export interface OwnerLayers {
  readonly owner: ValuesOwner;
  readonly statics: StaticValues;
  readonly schemas: ValuesSchemas;
}

/** The owner's static values: its sections of the root and the module's values.yaml. */
function staticSection(layers: OwnerLayers): JsonValue {
  const { owner, statics } = layers;
  return owner.kind === 'global'
    ? globalValues(statics, EMPTY_CONFIG_VALUES)
    : moduleValues(owner.name, statics, EMPTY_CONFIG_VALUES);
}

/**
 * The owner's values after each layer of mergedSection, named for people (docs/values.md "Where a
 * value came from"): the tree's values.yaml, the module's values.yaml, the config schema's
 * defaults, the ConfigMap, the values schema's defaults, then `current` (the hooks' patches on top).
 */
export function valueLayers(layers: OwnerLayers, config: ConfigValues, current: JsonValue): ValuesLayer[] {
  const { owner, statics } = layers;
  const files: ValuesLayer[] =
    owner.kind === 'global'
      ? [{ name: 'values.yaml of the tree', value: staticSection(layers) }]
      : [
          {
            name: 'values.yaml of the tree',
            value: mergeValues({}, statics.root[ownerValuesKey(owner)]) ?? {},
          },
          { name: "the module's values.yaml", value: staticSection(layers) },
        ];
  const configDefaults = layers.schemas.withDefaults('config', staticSection(layers));
  const configured = configLayer(layers, configSection(config, owner));
  return [
    ...files,
    { name: 'config schema default', value: configDefaults },
    { name: 'ConfigMap', value: configured },
    { name: 'values schema default', value: layers.schemas.withDefaults('values', configured) },
    { name: 'hooks', value: current },
  ];
}

/**
 * What the config values schema checks (docs/values.md "Validation": "values merged from values.yaml,
 * modules/values.yaml and the ConfigMap"): static values, the config schema's defaults, then
 * config values.
 */
export function configLayer(layers: OwnerLayers, config: JsonValue): JsonValue {
  const base = layers.schemas.withDefaults('config', staticSection(layers));
  return mergeValues(base, config) ?? {};
}

/**
 * The owner's merged values (docs/values.md "Layers"), layer by layer as addon-operator builds
 * them: static values, config schema defaults, config values, values schema defaults, then the
 * stored values patches replayed in order. Defaults only fill absent keys, so a value set in any
 * file or in the ConfigMap wins over a default, and hooks can patch keys inside defaulted maps.
 */
export function mergedSection(layers: OwnerLayers, config: ConfigValues, patches: ValuesPatch): JsonValue {
  const section = layers.schemas.withDefaults(
    'values',
    configLayer(layers, configSection(config, layers.owner)),
  );
  if (patches.length === 0) return section;
  const key = ownerValuesKey(layers.owner);
  const patched = applyValuesPatch({ [key]: section }, patches, {
    source: { kind: 'values' },
    ignoreMissingRemoves: true,
  });
  return patched[key] ?? {};
}

export function asMap(value: JsonValue | undefined): JsonObject {
  return isJsonObject(value) ? value : {};
}
