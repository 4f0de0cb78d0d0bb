#!/usr/bin/env bash
# Installs the non-Go tools the offline command's tests run, pinned, and
# prints where each is:
#
#   hack/ci-tools.sh sarif-multitool   Microsoft's SARIF multitool (npm package
#                                      @microsoft/sarif-multitool, SARIF_MULTITOOL_VERSION)
#                                      in bin/npm/; prints its path
#   hack/ci-tools.sh pre-commit        pre-commit from Debian's packages; prints its path
#
# npm itself comes from Debian's packages when the machine has none (a fresh
# machine has only Go, gcc, git and apt). Installing needs root for apt; a
# tool already present is only confirmed (~0.1 s). The multitool is a
# self-contained .NET binary inside its npm package (about 100 MB in bin/npm/).
set -euo pipefail
cd "$(dirname "$0")/.."

SARIF_MULTITOOL_VERSION=5.7.0
NPM_PREFIX=bin/npm

apt_install() {
  if [ "$(id -u)" != 0 ]; then
    echo "ci-tools: $* missing; install it with apt-get (needs root)" >&2
    exit 1
  fi
  echo "ci-tools: apt-get install $*" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

case "${1:-}" in
sarif-multitool)
  bin="$NPM_PREFIX/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
  pkg="$NPM_PREFIX/node_modules/@microsoft/sarif-multitool-linux/package.json"
  if [ ! -x "$bin" ] || ! grep -q "\"version\": *\"$SARIF_MULTITOOL_VERSION\"" "$pkg" 2>/dev/null; then
    command -v npm >/dev/null || apt_install npm
    echo "ci-tools: npm install @microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION into $NPM_PREFIX" >&2
    # The platform package is named too, so that its version is pinned as
    # well (the main package asks for ^$SARIF_MULTITOOL_VERSION).
    npm install --prefix "$NPM_PREFIX" --no-audit --no-fund --loglevel=error \
      "@microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION" \
      "@microsoft/sarif-multitool-linux@$SARIF_MULTITOOL_VERSION" >&2
    # Its postinstall script only does this; newer npm skips install scripts.
    chmod u+x "$bin"
  fi
  echo "$PWD/$bin"
  ;;
pre-commit)
  command -v pre-commit >/dev/null || apt_install pre-commit
  command -v pre-commit
  ;;
*)
  echo "usage: hack/ci-tools.sh sarif-multitool|pre-commit" >&2
  exit 2
  ;;
esac
