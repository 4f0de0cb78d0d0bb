#!/usr/bin/env bash
# Everything the single-node cluster (hack/node) needs, installed or built
# when missing, with a progress line per step:
#   - Debian's containerd, runc, containernetworking-plugins, iptables and
#     conntrack (apt-get; the machine must be Debian and this must run as root);
#   - kube-apiserver, kubectl, etcd, kubelet, kube-controller-manager,
#     kube-scheduler and kube-proxy v1.37.2 (hack/k8s-binaries.sh k8s, node),
#     and helm (hack/k8s-binaries.sh helm);
#   - the product image (make image) and the pause image (hack/node/pause
#     packed by hack/tools/ociimage) as OCI tarballs in bin/image/.
# Each step is cached (apt: installed packages; binaries: their stamps; the
# images: Go's build cache), so a second run takes seconds.
#
# Usage: hack/node/setup.sh            installs and builds (make test-node, make run NODE=1);
#                                      prints nothing but progress on stderr
#        hack/node/setup.sh check      prints why the node cannot run here, on one line, and
#                                      exits 1 (exit 0, silent, when it can); changes nothing
#        hack/node/setup.sh no-install builds only (the tests: a test installs nothing);
#                                      fails as check does when something is missing
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
log() { printf '[node-setup %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

PACKAGES=(containerd runc containernetworking-plugins iptables conntrack)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# unavailable: why the node cannot run here and how to run it, or nothing.
unavailable() {
  if [[ "$(uname -s)" != Linux ]]; then
    echo "needs Linux: the node runs containerd and a kubelet; run make test-node as root on Debian"
  elif [[ "$(id -u)" != 0 ]]; then
    echo "needs root: the node runs containerd and a kubelet; run make test-node as root"
  elif ((${#missing[@]})); then
    echo "needs Debian's ${missing[*]}: run make test-node as root on Debian (hack/node/setup.sh installs them with apt-get)"
  fi
}

case "${1:-}" in
check)
  reason="$(unavailable)"
  [[ -z "$reason" ]] || { echo "$reason"; exit 1; }
  exit 0
  ;;
no-install)
  reason="$(unavailable)"
  [[ -z "$reason" ]] || die "$reason"
  ;;
"")
  [[ "$(uname -s)" == Linux ]] || die "the node needs Linux"
  [[ "$(id -u)" == 0 ]] || die "the node runs containerd and the kubelet, which need root (id -u is $(id -u))"
  ;;
*)
  echo "usage: hack/node/setup.sh [check|no-install]" >&2
  exit 2
  ;;
esac

if ((${#missing[@]})); then
  command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
  s=$(date +%s)
  log "installing ${missing[*]} with apt-get"
  aptlog="$(mktemp)"
  # No service is started by the package on these machines (no systemd); the
  # node runs its own containerd with its own config, socket and root.
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$aptlog" 2>&1; then
    tail -20 "$aptlog" >&2; rm -f "$aptlog"; die "apt-get install ${missing[*]} failed"
  fi
  rm -f "$aptlog"
  log "installed ${missing[*]} in $(( $(date +%s) - s ))s"
else
  log "containerd $(dpkg-query -W -f='${Version}' containerd), runc, CNI plugins, iptables, conntrack installed"
fi

hack/k8s-binaries.sh k8s
hack/k8s-binaries.sh node
hack/k8s-binaries.sh helm

s=$(date +%s)
log "building the images (bin/image/listenerset-webhook.tar, bin/image/pause.tar)"
make -s image >/dev/null
mkdir -p bin/image
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o bin/image/pause ./hack/node/pause
bin/ociimage -o bin/image/pause.tar -name localhost/lsw-pause:1 \
  -file /pause=bin/image/pause -user 65535:65535 -entrypoint /pause >/dev/null
log "images built in $(( $(date +%s) - s ))s"
