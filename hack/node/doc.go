// Package node runs a real single-node Kubernetes cluster on this machine, for
// the chart's node tests (test/chart, node_test.go) and `make run NODE=1`:
// etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy
// and a kubelet (v1.37.2, built from Go modules by hack/k8s-binaries.sh), and
// Debian's containerd with runc and the CNI plugins (installed by
// hack/node/setup.sh, which Start runs first). Images come from OCI tarballs
// (make image; the pause image built from hack/node/pause) imported into
// containerd; no registry is contacted unless a test names one with
// TrustRegistry (a registry of its own on loopback, over TLS: containerd's
// hosts.toml for it), and then only for an image the test names there.
//
// What this package owns: the node's processes, their configuration, its PKI
// (a CA, kube-apiserver's serving certificate, one admin client certificate
// every component uses, the service account key) and its clean-up. Stop
// removes every pod sandbox through the CRI (containers, their mounts and
// network namespaces), stops the processes, removes kube-proxy's iptables
// rules and the pod bridge with its routes, unmounts what is left under
// the node's directory and removes it.
//
// Networking stays on this machine. Pods get addresses from a bridge
// (lswbr0, PodCIDR) that exists only on this machine; forwarding from that
// bridge to anywhere but itself is dropped, so a pod reaches nothing but the
// node and other pods. The node's address is this machine's own (the address
// of the interface of its default route); kube-apiserver and the kubelet
// listen on every address, and an iptables rule lets only this machine and
// the pods connect to them. Service ClusterIPs (ServiceCIDR) are routed to
// the pod bridge too, so that a packet kube-proxy did not translate stays on
// this machine. Nothing is looked up in the machine's DNS: kube-apiserver
// reaches the kubelet by the node's address, and the pods' resolv.conf names
// only 127.0.0.1. The machine's settings must allow this: root, cgroups (v1
// or hybrid: kubelet cgroupDriver cgroupfs with failCgroupV1 false), iptables
// (nf_tables) and overlayfs; containerd's CRI runs with
// restrict_oom_score_adj (the sandbox may not lower oom_score_adj).
package node
