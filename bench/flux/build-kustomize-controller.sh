#!/usr/bin/env bash
# Builds Flux's kustomize-controller from the Go module proxy into bench/out/flux/, with the CRDs
# it needs (its own and source-controller's), for `npm run bench:operator -- --flux`
# (docs/performance.md, "Flux on the same modules"). About two minutes on 2 CPUs, cold.
#
# The controller's go.mod replaces its api/ submodule with a relative path, so `go install …@v`
# refuses it; it is built as the main module from a copy of the module's source instead.
set -euo pipefail

VERSION="${KUSTOMIZE_CONTROLLER_VERSION:-v1.9.6}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/bench/out/flux"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

module_dir() {
  GOFLAGS=-mod=mod go mod download -json "$1" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'
}

src="$(module_dir "github.com/fluxcd/kustomize-controller@$VERSION")"
cp -r "$src" "$work/src"
cp -r "$(module_dir "github.com/fluxcd/kustomize-controller/api@$VERSION")" "$work/src/api"
chmod -R u+w "$work/src"

# source-controller's CRDs, at the API version the controller was built against.
source_api="$(sed -n 's/^\tgithub.com\/fluxcd\/source-controller\/api \(v[^ ]*\)$/\1/p' "$work/src/go.mod")"
source_dir="$(module_dir "github.com/fluxcd/source-controller@$source_api")"

mkdir -p "$out/crds"
(cd "$work/src" && CGO_ENABLED=0 go build -o "$out/kustomize-controller" .)
cp "$work/src/config/crd/bases/"*.yaml "$source_dir/config/crd/bases/"*.yaml "$out/crds/"
echo "kustomize-controller $VERSION (source-controller API $source_api): $out"
