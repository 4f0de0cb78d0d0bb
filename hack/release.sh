#!/usr/bin/env bash
# hack/release.sh: make release and make release-check (docs/release.md).
#
#   hack/release.sh build   writes $DIST: the image (an OCI image index, linux/amd64 and linux/arm64, as
#                           an OCI tarball), the chart pinned to it by digest, the kubectl plugin for
#                           linux and darwin on amd64 and arm64 (each binary, and an archive of it for
#                           krew), the krew plugin manifest of those archives, their CycloneDX SBOMs,
#                           SHA256SUMS, cosign signatures and the release notes
#   hack/release.sh check   builds twice from the same commit, the second time from a clone in another
#                           directory (with a fresh Go build cache when RELEASE_CHECK_COLD=1), and
#                           compares every file but the signatures; prints the image digest and times
#   hack/release.sh publish pushes $DIST to $REGISTRY and signs it there: checks the release against
#                           $RELEASE_KEY first (default $DIST/cosign.pub), pushes the image index by
#                           digest, tagged $VERSION, and the chart to oci://$REGISTRY/charts, signs both
#                           with $COSIGN_KEY and verifies the signatures; $REGISTRY_CA names the CA
#                           bundle of a registry whose certificate the system does not trust
#
# Environment: VERSION (vX.Y.Z, required), DIST (default dist), COSIGN_KEY (the private key's file;
# check makes a throwaway pair) with COSIGN_PASSWORD, the tools HELM, COSIGN, CYCLONEDX, OCIIMAGE (the
# Makefile builds them), IMAGE_FLAGS (ociimage's flags for the image around its binary, make image's),
# KREW_URI_BASE (where the plugin's archives are downloaded from, the krew manifest's uris: default
# https://$module/releases/download/$VERSION), and COMMIT, SOURCE_DATE_EPOCH, NOTES_SECTION, which default
# to HEAD, its commit time and VERSION without its v.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
module=github.com/airlock/listenerset-webhook
image_name=listenerset-webhook
plugin=kubectl-listenerset
platforms_image=(linux/amd64 linux/arm64)
platforms_plugin=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
# The plugin's name in a krew index: kubectl runs kubectl-listenerset as `kubectl listenerset`.
krew_name=${plugin#kubectl-}
# The license's SPDX identifier, one place: the chart's annotation (the krew manifest carries it too).
license=$(sed -n 's|^  artifacthub.io/license: *||p' charts/listenerset-webhook/Chart.yaml)

log() { printf '[release %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'release: %s\n' "$*" >&2; exit 1; }

# RELEASE_PLATFORMS="os/arch ...": only these of the platforms above. The node suite installs a release on
# this machine and needs only its own platform; each other one is a cold compile of every dependency
# (minutes on 2 cores). make release and make release-check build them all.
if [[ -n ${RELEASE_PLATFORMS:-} ]]; then
  keep() { local p; for p in "$@"; do [[ " $RELEASE_PLATFORMS " == *" $p "* ]] && printf '%s\n' "$p"; done; }
  mapfile -t platforms_image < <(keep "${platforms_image[@]}")
  mapfile -t platforms_plugin < <(keep "${platforms_plugin[@]}")
  ((${#platforms_image[@]})) || die "RELEASE_PLATFORMS=$RELEASE_PLATFORMS names no image platform"
fi

: "${VERSION:?VERSION=vX.Y.Z is required}"
[[ $VERSION =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]] ||
  die "VERSION=$VERSION: want v followed by a semantic version, e.g. v1.2.3 or v1.2.3-rc.1"
: "${HELM:?}" "${COSIGN:?}" "${CYCLONEDX:?}" "${OCIIMAGE:?}" "${IMAGE_FLAGS:?}"
[[ -f LICENSE && -n $license ]] || die "LICENSE and Chart.yaml's artifacthub.io/license are required (every archive and the image carry them)"
KREW_URI_BASE=${KREW_URI_BASE:-https://$module/releases/download/$VERSION}
# krew downloads with Go's HTTP client: http or https, nothing else (no file://).
[[ $KREW_URI_BASE =~ ^https?://[^[:space:]\"\'#?]+[^/]$ ]] ||
  die "KREW_URI_BASE=$KREW_URI_BASE: want an http:// or https:// URL without a trailing /, where the release's files are downloaded from"

# sbom OUT BINARY OS ARCH: the CycloneDX SBOM of a binary, from the module graph its build recorded. No
# serial number and no timestamp, so that a build again gives the same file. cyclonedx-gomod writes the
# goos and goarch of `go env` into every purl, not the binary's, hence GOOS and GOARCH.
sbom() {
  GOOS=$3 GOARCH=$4 "$CYCLONEDX" bin -json -noserial -notimestamp -version "$VERSION" -output "$1" "$2"
}

# krew_archive OUT DIR FILE...: the .tar.gz krew installs the plugin from, FILE... of DIR, packed as the
# chart: in the order given, dated SOURCE_DATE_EPOCH, owned by root, rwxr-xr-x or rw-r--r--, gzipped
# without a name or time, so that a build again gives the same file. gzip's default level: -9 took four
# times as long (59 s against 15 s for a 49 MB binary under load) for 0.8 % less.
krew_archive() {
  local out=$1 dir=$2
  shift 2
  tar --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner --mode=u=rwX,go=rX --format=ustar \
    -C "$dir" -cf - "$@" | gzip -n >"$out"
}

# krew_manifest DIST FILE...: the krew plugin manifest (docs/release.md) of the plugin's archives in DIST,
# one platform each, with FILE... the files every archive holds and krew installs.
krew_manifest() {
  local dist=$1 p os arch archive sum f
  shift
  cat <<EOF
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: $krew_name
  annotations:
    # SPDX, as Artifact Hub reads it from a krew manifest; LICENSE is in every archive.
    artifacthub.io/license: $license
spec:
  version: "$VERSION"
  homepage: https://$module
  shortDescription: Validate and inspect Gateway API ListenerSets for Airlock
  description: |
    The offline side of the admission webhook for Gateway API ListenerSets on
    Airlock Microgateway. It judges ListenerSet manifests as kube-apiserver with
    the webhook would, without a cluster; shows each Gateway's merged listener
    list; audits the ListenerSets a cluster stores; and prints a
    ValidatingAdmissionPolicy that enforces the webhook's object rules.
  platforms:
EOF
  for p in "${platforms_plugin[@]}"; do
    os=${p%/*} arch=${p#*/}
    archive=$plugin-$VERSION-$os-$arch.tar.gz
    sum=$(sha256sum <"$dist/$archive" | cut -d' ' -f1)
    cat <<EOF
  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: $KREW_URI_BASE/$archive
    sha256: $sum
    bin: $plugin
    files:
EOF
    for f in "$@"; do
      printf '    - from: %s\n      to: .\n' "$f"
    done
  done
}

# cosign_verify LOG KEY COMMAND ARGS: cosign verify-blob or verify against KEY, offline, its messages in LOG.
# SIGSTORE_REKOR_PUBLIC_KEY names a Rekor key, which --insecure-ignore-tlog never uses, so that cosign does
# not look for Sigstore's public trust root on the internet.
cosign_verify() {
  local log=$1 key=$2 command=$3
  shift 3
  SIGSTORE_REKOR_PUBLIC_KEY=$key "$COSIGN" "$command" --insecure-ignore-tlog=true --key "$key" "$@" >/dev/null 2>"$log"
}

build() {
  local dist=${DIST:-dist} chart_version=${VERSION#v}
  local commit=${COMMIT:-$(git rev-parse HEAD)$([ -z "$(git status --porcelain)" ] || echo -dirty)}
  export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
  : "${COSIGN_KEY:?COSIGN_KEY=path/to/cosign.key is required (and COSIGN_PASSWORD): see docs/release.md}"
  [ -f "$COSIGN_KEY" ] || die "COSIGN_KEY=$COSIGN_KEY: no such file"
  # The notes are checked first: a release without its CHANGELOG section stops before building.
  local notes
  notes=$(go run ./hack/changelog -section "${NOTES_SECTION:-$chart_version}" CHANGELOG.md) ||
    die "CHANGELOG.md needs a section ## [$chart_version] - $(date -u +%F): rename [Unreleased] (docs/release.md)"

  rm -rf "$dist"
  local work=$dist/.work
  mkdir -p "$work"
  # Reproducible binaries: no cgo, no paths (-trimpath), no build ID, no VCS stamp (the commit is -X).
  local ldflags="-s -w -buildid= -X $module/version.Version=$VERSION -X $module/version.Commit=$commit"
  local p os arch
  for p in "${platforms_image[@]}"; do
    os=${p%/*} arch=${p#*/}
    log "listenerset-webhook $os/$arch"
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags" \
      -o "$work/$os-$arch/listenerset-webhook" ./cmd/listenerset-webhook
    sbom "$work/$os-$arch/listenerset-webhook.cdx.json" "$work/$os-$arch/listenerset-webhook" "$os" "$arch"
  done
  for p in "${platforms_plugin[@]}"; do
    os=${p%/*} arch=${p#*/}
    log "$plugin $os/$arch"
    local bin=$dist/$plugin-$VERSION-$os-$arch
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=false -ldflags "$ldflags" \
      -o "$bin" ./cmd/kubectl-listenerset
    sbom "$bin.cdx.json" "$bin" "$os" "$arch"
  done
  # For krew: an archive a platform, the binary and the repository's LICENSE (krew-index wants one in
  # every archive), and the manifest that names them.
  log "krew archives and manifest $krew_name.yaml (uris $KREW_URI_BASE/)"
  local krew_files=(LICENSE "$plugin")
  for p in "${platforms_plugin[@]}"; do
    os=${p%/*} arch=${p#*/}
    mkdir -p "$work/krew/$os-$arch"
    cp "$dist/$plugin-$VERSION-$os-$arch" "$work/krew/$os-$arch/$plugin"
    cp LICENSE "$work/krew/$os-$arch/"
    krew_archive "$dist/$plugin-$VERSION-$os-$arch.tar.gz" "$work/krew/$os-$arch" "${krew_files[@]}"
  done
  krew_manifest "$dist" "${krew_files[@]}" >"$dist/$krew_name.yaml"

  log "image (${platforms_image[*]})"
  local tarball=$dist/$image_name-$VERSION.oci.tar platform_flags=() sbom_flags=()
  for p in "${platforms_image[@]}"; do
    platform_flags+=(-platform "$p")
    # The image's SBOM holds both binaries' (imagesbom: each by its file).
    sbom_flags+=(-sbom "$p:/listenerset-webhook=$work/${p%/*}-${p#*/}/listenerset-webhook.cdx.json"
      -sbom "$p:/$plugin=$dist/$plugin-$VERSION-${p%/*}-${p#*/}.cdx.json")
  done
  # The image's own name is host-less: a release names no registry; whoever pushes it names theirs.
  local digest
  local image_flags
  read -ra image_flags <<<"$IMAGE_FLAGS"
  digest=$("$OCIIMAGE" -o "$tarball" -name "localhost/$image_name:$VERSION" -index "${platform_flags[@]}" \
    -file "/listenerset-webhook=$work/{os}-{arch}/listenerset-webhook" \
    -file "/$plugin=$dist/$plugin-$VERSION-{os}-{arch}" -file /LICENSE=LICENSE "${image_flags[@]}" | awk '{print $3}')
  [[ $digest == sha256:* ]] || die "ociimage printed no digest"
  echo "$digest" >"$dist/$image_name-$VERSION.digest"
  # The image index itself: its SHA-256 is the digest, so its signature signs the image.
  tar -xOf "$tarball" "blobs/sha256/${digest#sha256:}" >"$dist/$image_name-$VERSION.index.json"
  go run ./hack/imagesbom -name "$image_name" -version "$VERSION" "${sbom_flags[@]}" \
    -o "$dist/$image_name-$VERSION-{os}-{arch}.image.cdx.json" "$tarball"

  log "chart $chart_version (image $digest)"
  cp -r charts/listenerset-webhook "$work/chart"
  sed -i -e "s/^version: .*/version: $chart_version/" -e "s/^appVersion: .*/appVersion: \"$VERSION\"/" \
    "$work/chart/Chart.yaml"
  # The values' image.digest (its line under image:, indented by two).
  sed -i "/^image:/,/^[^ #]/s/^  digest: .*/  digest: \"$digest\"/" "$work/chart/values.yaml"
  grep -q "^  digest: \"$digest\"" "$work/chart/values.yaml" || die "could not pin image.digest in values.yaml"
  "$HELM" package "$work/chart" --destination "$dist" >/dev/null
  local chart=$dist/$image_name-$chart_version.tgz
  [ -f "$chart" ] || die "helm package wrote no $chart"
  # helm dates every entry now; packed again in name order, dated SOURCE_DATE_EPOCH, owned by root and
  # gzipped without a name or time, the chart is the same file from every build of the commit.
  mkdir "$work/packed"
  tar -xzf "$chart" -C "$work/packed"
  tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner --format=ustar \
    -C "$work/packed" -cf - "$image_name" | gzip -n -9 >"$chart"
  "$HELM" show chart "$chart" | grep -qx "version: $chart_version" || die "$chart does not load as version $chart_version"

  printf '%s\n' "$notes" >"$dist/RELEASE_NOTES.md"
  (cd "$dist" && sha256sum -- * >.work/SHA256SUMS) && mv "$work/SHA256SUMS" "$dist/"

  log "signatures (cosign, key $COSIGN_KEY)"
  "$COSIGN" public-key --key "$COSIGN_KEY" >"$dist/cosign.pub"
  local f
  for f in "$dist/$image_name-$VERSION.index.json" "$chart" "$dist/SHA256SUMS"; do
    # Offline: no transparency log upload (keyless signing and Rekor need the internet).
    "$COSIGN" sign-blob --yes --tlog-upload=false --key "$COSIGN_KEY" --output-signature "$f.sig" "$f" >/dev/null 2>"$work/cosign.log" ||
      die "cosign sign-blob $f: $(cat "$work/cosign.log")"
    cosign_verify "$work/cosign.log" "$dist/cosign.pub" verify-blob --signature "$f.sig" "$f" ||
      die "cosign verify-blob $f: $(cat "$work/cosign.log")"
  done
  chmod 0644 "$dist"/*.sig # cosign writes them for its owner alone
  # The binaries say what they are.
  local own
  own=$dist/$plugin-$VERSION-$(go env GOOS)-$(go env GOARCH)
  if [ -x "$own" ]; then
    local said
    said=$("$own" --version)
    [[ $said == "$plugin $VERSION, commit $commit, "* ]] || die "$own --version: $said"
  fi
  rm -rf "$work"
  log "done: $dist (image $digest)"
}

check() {
  [ -z "$(git status --porcelain)" ] || die "release-check builds the commit twice: commit or stash first"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  export COMMIT
  COMMIT=$(git rev-parse HEAD)
  export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
  export NOTES_SECTION=${NOTES_SECTION:-Unreleased}
  if [ -z "${COSIGN_KEY:-}" ]; then
    # A throwaway key pair: the check compares builds, not keys.
    export COSIGN_PASSWORD=${COSIGN_PASSWORD:-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')}
    (cd "$tmp" && "$COSIGN" generate-key-pair >/dev/null 2>&1) || die "cosign generate-key-pair failed"
    export COSIGN_KEY=$tmp/cosign.key
  fi
  local t0 t1 t2
  t0=$(date +%s)
  DIST=$tmp/a build
  t1=$(date +%s)
  git clone -q --no-checkout "$root" "$tmp/src"
  git -C "$tmp/src" checkout -q --detach "$COMMIT"
  if [ "${RELEASE_CHECK_COLD:-}" = 1 ]; then
    export GOCACHE=$tmp/gocache
  fi
  DIST=$tmp/b "$tmp/src/hack/release.sh" build
  t2=$(date +%s)
  local a b differ=0
  for a in "$tmp"/a/*; do
    b=$tmp/b/${a##*/}
    case $a in *.sig | */cosign.pub) continue ;; esac
    if ! cmp -s "$a" "$b"; then
      echo "differs: ${a##*/}" >&2
      differ=1
    fi
  done
  printf 'image digest: %s and %s\n' "$(cat "$tmp"/a/*.digest)" "$(cat "$tmp"/b/*.digest)"
  printf 'builds: %ss, then %ss from %s%s\n' $((t1 - t0)) $((t2 - t1)) "$tmp/src" \
    "$([ "${RELEASE_CHECK_COLD:-}" = 1 ] && echo ' with an empty Go build cache')"
  [ "$differ" = 0 ] || die "the two builds of $COMMIT differ"
  echo "release-check: every file but the signatures is the same in both builds of $COMMIT"
}

# publish: dist/ into a registry, as the release manager (or a user mirroring a release, with their own
# key) runs it. The release is checked before anything is pushed, and the signatures after.
publish() {
  local dist=${DIST:-dist} chart_version=${VERSION#v}
  : "${REGISTRY:?REGISTRY=host[:port]/path is required: where the image and the chart go}"
  : "${COSIGN_KEY:?COSIGN_KEY=path/to/cosign.key is required (and COSIGN_PASSWORD): the key that signs in the registry}"
  [[ $REGISTRY != *://* && $REGISTRY != */ ]] || die "REGISTRY=$REGISTRY: want host[:port]/path, no scheme, no trailing /"
  local tarball=$dist/$image_name-$VERSION.oci.tar index=$dist/$image_name-$VERSION.index.json
  local chart=$dist/$image_name-$chart_version.tgz release_key=${RELEASE_KEY:-$dist/cosign.pub}
  local f
  for f in "$tarball" "$index" "$index.sig" "$chart" "$chart.sig" "$dist/SHA256SUMS" "$dist/SHA256SUMS.sig" \
    "$dist/$image_name-$VERSION.digest" "$release_key"; do
    [ -f "$f" ] || die "$f: no such file (make release VERSION=$VERSION writes it; DIST names another directory)"
  done
  local ca_helm=() ca_cosign=() ca_push=()
  work=$(mktemp -d) # global: the EXIT trap runs after publish returns
  trap 'rm -rf "$work"' EXIT
  local log=$work/log
  if [ -n "${REGISTRY_CA:-}" ]; then
    [ -f "$REGISTRY_CA" ] || die "REGISTRY_CA=$REGISTRY_CA: no such file"
    ca_helm=(--ca-file "$REGISTRY_CA") ca_cosign=(--registry-cacert "$REGISTRY_CA") ca_push=(-ca-file "$REGISTRY_CA")
  fi
  log "checking $dist against $release_key"
  local digest
  digest=$(cat "$dist/$image_name-$VERSION.digest")
  for f in "$dist/SHA256SUMS" "$index" "$chart"; do
    cosign_verify "$log" "$release_key" verify-blob --signature "$f.sig" "$f" || die "cosign verify-blob $f: $(cat "$log")"
  done
  (cd "$dist" && sha256sum --check --quiet SHA256SUMS) >"$log" 2>&1 || die "SHA256SUMS: $(cat "$log")"
  [ "sha256:$(sha256sum <"$index" | cut -d' ' -f1)" = "$digest" ] || die "$index is not the image $digest"

  log "image $REGISTRY/$image_name:$VERSION ($digest)"
  local pushed
  pushed=$("$OCIIMAGE" push "${ca_push[@]}" "$tarball" "$REGISTRY/$image_name:$VERSION") || die "ociimage push failed"
  [ "$pushed" = "$REGISTRY/$image_name@$digest" ] || die "ociimage push: $pushed, want $REGISTRY/$image_name@$digest"

  log "chart oci://$REGISTRY/charts/$image_name --version $chart_version"
  local chart_digest
  "$HELM" push "${ca_helm[@]}" "$chart" "oci://$REGISTRY/charts" >"$log" 2>&1 || die "helm push: $(cat "$log")"
  chart_digest=$(sed -n 's/^Digest: //p' "$log")
  [[ $chart_digest == sha256:* ]] || die "helm push printed no digest: $(cat "$log")"

  log "signing both in the registry (cosign, key $COSIGN_KEY)"
  local signer=$work/cosign.pub ref
  "$COSIGN" public-key --key "$COSIGN_KEY" >"$signer" 2>"$log" || die "cosign public-key: $(cat "$log")"
  for ref in "$REGISTRY/$image_name@$digest" "$REGISTRY/charts/$image_name@$chart_digest"; do
    # Offline, as sign-blob in build: no transparency log.
    "$COSIGN" sign --yes --tlog-upload=false "${ca_cosign[@]}" --key "$COSIGN_KEY" "$ref" >/dev/null 2>"$log" ||
      die "cosign sign $ref: $(cat "$log")"
    cosign_verify "$log" "$signer" verify "${ca_cosign[@]}" "$ref" || die "cosign verify $ref: $(cat "$log")"
  done
  printf 'image: %s\nchart: %s (oci://%s/charts/%s --version %s)\n' "$REGISTRY/$image_name@$digest" \
    "$REGISTRY/charts/$image_name@$chart_digest" "$REGISTRY" "$image_name" "$chart_version"
}

case ${1:-} in
build) build ;;
check) check ;;
publish) publish ;;
*) die "usage: hack/release.sh build|check|publish" ;;
esac
