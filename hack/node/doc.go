// Package node runs a real single-node Kubernetes cluster on this machine,
// for the chart's node tests (test/chart) and `make run NODE=1`: etcd, the
// control plane, kube-proxy and a kubelet (v1.37.2, from hack/k8s-binaries.sh)
// with Debian's containerd, runc and CNI plugins (hack/node/setup.sh, which
// Start runs first). Images are imported from OCI tarballs; no registry is
// contacted unless a test names one of its own on loopback (TrustRegistry).
//
// It owns the node's processes, configuration, PKI and clean-up: Stop leaves
// the machine as it was. Networking stays on this machine: pods are on a
// bridge of their own whose forwarding elsewhere is dropped, ClusterIPs are
// routed to it, kube-apiserver and the kubelet accept only this machine and
// its pods, and nothing is resolved through the machine's DNS
// (setUpNetwork, config.go). It needs root, cgroups v1 or hybrid, iptables
// and overlayfs. How to run the node tests: docs/development.md.
package node
