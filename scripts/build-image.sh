#!/usr/bin/env bash
# Builds kaddon's image where no container registry is reachable (README "Install in a cluster"):
# the base is made with debootstrap from Debian's packages, Node is this machine's own (Debian's
# bookworm has only Node 18; kaddon needs 20.19 or newer), and the Dockerfile is built FROM it with
# podman. With a registry, `docker build .` uses the official node image instead.
#   scripts/build-image.sh [TAG]        default tag localhost/kaddon:dev
# Needs root, podman and debootstrap (Debian: apt-get install podman debootstrap). The base root
# file system is kept under $KADDON_IMAGE_CACHE (~/.cache/kaddon/image) and the base image in
# podman's storage, so a rebuild only builds the Dockerfile.
set -euo pipefail
tag="${1:-localhost/kaddon:dev}"
cache="${KADDON_IMAGE_CACHE:-$HOME/.cache/kaddon/image}"
node_version="$(node -p process.versions.node)"
base="localhost/kaddon-node-base:${node_version}"
# In a container without overlay mounts, podman's vfs driver is the one that works.
export STORAGE_DRIVER="${STORAGE_DRIVER:-vfs}"
cd "$(dirname "$0")/.."

if ! podman image exists "$base"; then
  rootfs="$cache/rootfs-${node_version}"
  if [ ! -x "$rootfs/usr/local/bin/node" ]; then
    rm -rf "$rootfs"
    mkdir -p "$cache"
    debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian
    install -m 0755 "$(readlink -f "$(command -v node)")" "$rootfs/usr/local/bin/node"
    npm_root="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
    mkdir -p "$rootfs/usr/local/lib/node_modules"
    cp -a "$npm_root" "$rootfs/usr/local/lib/node_modules/npm"
    ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
    ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
    rm -rf "$rootfs/var/cache/apt/archives/"*.deb
  fi
  # The build machine's CA bundle: where registries are reached through a TLS-inspecting proxy, npm
  # inside the build needs it. The runtime stage installs Debian's ca-certificates over it.
  mkdir -p "$rootfs/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  tar -C "$rootfs" -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["node"]' - "$base"
fi

podman build --isolation chroot --network host --build-arg NODE_IMAGE="$base" -t "$tag" .
