import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { builtInRenderer, ChartRenderer } from '../../src/delivery/helm/chart-renderer.ts';
import { HelmClient } from '../../src/delivery/helm/helm-client.ts';
import { HelmError } from '../../src/delivery/helm/helm-error.ts';
import { makeTempTree, type TempTree } from '../temp-tree.ts';
import { ensureGoBinary } from '../cluster/go-build.ts';
import { repoRoot } from '../repo-root.ts';

/** The Helm version chart-renderer/go.mod builds the renderer on. */
export function rendererHelmVersion(): string {
  const goMod = readFileSync(path.join(repoRoot, 'chart-renderer', 'go.mod'), 'utf8');
  const version = /^require helm\.sh\/helm\/v4 (v\S+)$/m.exec(goMod)?.[1];
  if (version === undefined) throw new Error('chart-renderer/go.mod names no helm.sh/helm/v4 version');
  return version;
}

/**
 * The helm CLI of the renderer's Helm version, built from the Go module proxy as its release is
 * (the version stamped with -X), cached under ~/.cache/kaddon/helm-cli/: the reference the
 * renderer's output is compared with.
 */
export function ensureReferenceHelm(): Promise<string> {
  const version = rendererHelmVersion();
  return ensureGoBinary({
    name: 'helm-cli',
    module: 'helm.sh/helm/v4',
    version,
    package: 'helm.sh/helm/v4/cmd/helm',
    ldflags: [`-X helm.sh/helm/v4/internal/version.version=${version}`],
  });
}

/** The renderer binary, built (or found up to date) by scripts/build-chart-renderer.mjs. */
export function ensureRenderer(): string {
  const result = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'build-chart-renderer.mjs')], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`scripts/build-chart-renderer.mjs failed: ${result.stderr}`);
  return builtInRenderer();
}

/** What one render printed: stdout where it rendered, stderr where it refused (exited non-zero). */
export type Outcome = { readonly stdout: string } | { readonly stderr: string };

/**
 * The outcome of `render` (HelmClient.template or ChartRenderer.template); a render ended from
 * outside (a time limit, kaddon stopping) is no outcome and throws.
 */
export async function outcome(render: () => Promise<string>): Promise<Outcome> {
  try {
    return { stdout: await render() };
  } catch (error: unknown) {
    if (!(error instanceof HelmError) || error.ended !== undefined) throw error;
    return { stderr: error.stderr };
  }
}

/** The release a test renders the chart called `name` as: `r-` and the name, a valid release name. */
export function releaseName(name: string): string {
  return `r-${name.replace(/[^a-z0-9]+/g, '-')}`.slice(0, 40).replace(/-$/, '');
}

/** The reference helm and the renderer a test file compares, with the temp tree they write in. */
export interface BothRenderers {
  readonly tmp: TempTree;
  readonly helm: HelmClient;
  readonly renderer: ChartRenderer;
}

/**
 * Makes both in the file's before() (the reference helm may need building first) and stops the
 * renderer and removes the temp tree in its after(); read `helm` and `renderer` inside tests.
 */
export function bothRenderers(prefix: string): BothRenderers {
  const tmp = makeTempTree(prefix);
  let made: { helm: HelmClient; renderer: ChartRenderer } | undefined;
  const get = (): { helm: HelmClient; renderer: ChartRenderer } => {
    if (made === undefined) throw new Error("bothRenderers: used before the test file's before() ran");
    return made;
  };
  before(async () => {
    made = {
      helm: new HelmClient({ helmPath: await ensureReferenceHelm(), tmpRoot: tmp.root }),
      renderer: new ChartRenderer({ binary: ensureRenderer(), tmpRoot: tmp.root }),
    };
  });
  after(() => {
    made?.renderer.stop();
    tmp.remove();
  });
  return {
    tmp,
    get helm() {
      return get().helm;
    },
    get renderer() {
      return get().renderer;
    },
  };
}
