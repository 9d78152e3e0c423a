import { isJsonObject, type JsonObject } from '../../core/json.ts';
import type { ApiResource, KubeClient } from '../../delivery/kube-client.ts';

/** The part of KubeClient that discovery needs. */
export type DiscoveryApi = Pick<KubeClient, 'request'>;

interface DiscoveredResource extends ApiResource {
  /** Lower-case kind, plural, singular and short names: what a binding's `kind` may say. */
  readonly aliases: readonly string[];
}

/**
 * Finds the resource a kubernetes binding watches, as shell-operator's kube-client does (docs/hooks.md
 * "kubernetes"): `kind` is case-insensitive and may be the plural or a short name; without `apiVersion`
 * every group's preferred version is searched, the core group first. Discovery is asked again
 * once when nothing matches, so a CRD created after startup is found.
 */
export class ResourceResolver {
  readonly #api: DiscoveryApi;
  readonly #byVersion = new Map<string, Promise<DiscoveredResource[]>>();

  constructor(api: DiscoveryApi) {
    this.#api = api;
  }

  async resolve(apiVersion: string | undefined, kind: string): Promise<ApiResource | undefined> {
    const wanted = kind.toLowerCase();
    for (const refresh of [false, true]) {
      if (refresh) this.#byVersion.clear();
      const versions = apiVersion ? [apiVersion] : await this.#preferredVersions();
      for (const version of versions) {
        const resources = await this.#resources(version).catch(() => []);
        const found = resources.find((resource) => resource.aliases.includes(wanted));
        if (found) return stripAliases(found);
      }
    }
    return undefined;
  }

  async #preferredVersions(): Promise<string[]> {
    const groups = await this.#api.request('GET', '/apis');
    const list = Array.isArray(groups.groups) ? groups.groups.filter(isJsonObject) : [];
    const preferred = list.flatMap((group) => {
      const version = isJsonObject(group.preferredVersion) ? group.preferredVersion.groupVersion : undefined;
      return typeof version === 'string' ? [version] : [];
    });
    return ['v1', ...preferred];
  }

  #resources(apiVersion: string): Promise<DiscoveredResource[]> {
    let cached = this.#byVersion.get(apiVersion);
    if (!cached) {
      const path = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      cached = this.#api.request('GET', path).then((list) => parseResources(apiVersion, list));
      cached.catch(() => this.#byVersion.delete(apiVersion));
      this.#byVersion.set(apiVersion, cached);
    }
    return cached;
  }
}

function parseResources(apiVersion: string, list: JsonObject): DiscoveredResource[] {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  const resources = Array.isArray(list.resources) ? list.resources.filter(isJsonObject) : [];
  return resources.flatMap((resource) => {
    const { name, kind, singularName, shortNames } = resource;
    if (typeof name !== 'string' || name.includes('/') || typeof kind !== 'string') return [];
    const short = Array.isArray(shortNames) ? shortNames.filter((s) => typeof s === 'string') : [];
    const singular = typeof singularName === 'string' && singularName !== '' ? [singularName] : [];
    return [
      {
        group: group ?? '',
        version: version ?? '',
        kind,
        name,
        namespaced: resource.namespaced === true,
        aliases: [kind, name, ...singular, ...short].map((alias) => alias.toLowerCase()),
      },
    ];
  });
}

function stripAliases(resource: DiscoveredResource): ApiResource {
  const { group, version, kind, name, namespaced } = resource;
  return { group, version, kind, name, namespaced };
}
