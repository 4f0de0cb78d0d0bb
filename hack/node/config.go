package node

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The node's fixed names and ranges. PodCIDR and ServiceCIDR are both routed
// to lswbr0, a bridge only this node's pods are on: neither leaves this machine.
const (
	NodeName    = "lsw-node"
	PodCIDR     = "10.244.0.0/24"
	ServiceCIDR = "10.96.0.0/24"
	// KubernetesServiceIP is the kubernetes Service's ClusterIP (the first of ServiceCIDR).
	KubernetesServiceIP = "10.96.0.1"
	podBridge           = "lswbr0"
	// PauseImage is the sandbox image built by setup.sh from hack/node/pause.
	// Its domain is localhost, which containerd keeps as it is, so the
	// imported image is found under this name and never pulled.
	PauseImage = "localhost/lsw-pause:1"
)

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// containerdConfig: Debian's containerd 1.6 with its own root, state and
// socket (never the machine's default ones), runc through the v2 shim with
// cgroupfs, the CRI's restrict_oom_score_adj (these machines refuse a lower
// oom_score_adj to the sandbox), the local pause image, the CNI config
// in the node's directory, and registries configured by hosts.toml files
// under Dir/certs.d (TrustRegistry), which the CRI reads on every pull.
func (n *Node) containerdConfig() string {
	return fmt.Sprintf(`version = 2
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = %[3]q

[ttrpc]
  address = %[4]q

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = %[5]q

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %[6]q
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "/usr/sbin/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %[7]q
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = %[8]q
`, filepath.Join(n.Dir, "containerd", "root"), filepath.Join(n.Dir, "containerd", "state"),
		n.ContainerdSocket, n.ContainerdSocket+".ttrpc", filepath.Join(n.Dir, "containerd", "opt"),
		PauseImage, filepath.Join(n.Dir, "cni"), n.registryHostsDir())
}

func (n *Node) registryHostsDir() string { return filepath.Join(n.Dir, "certs.d") }

// registryHosts: containerd's hosts.toml for a registry at host (host:port)
// that serves HTTPS with a certificate of the CA in caFile, for pulls only.
func registryHosts(host, caFile string) string {
	return fmt.Sprintf(`server = "https://%[1]s"

[host."https://%[1]s"]
  capabilities = ["pull", "resolve"]
  ca = %[2]q
`, host, caFile)
}

// cniConfig: one bridge on this machine, addresses from PodCIDR (host-local,
// its state in the node's directory), no masquerading.
func (n *Node) cniConfig() string {
	return fmt.Sprintf(`{
  "cniVersion": "0.4.0",
  "name": "lsw-pods",
  "plugins": [
    {
      "type": "bridge",
      "bridge": %q,
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": %q}]],
        "routes": [{"dst": "0.0.0.0/0"}],
        "dataDir": %q
      }
    }
  ]
}
`, podBridge, PodCIDR, filepath.Join(n.Dir, "cni-ipam"))
}

// kubeletConfig: cgroupfs (the machine's cgroups are v1/hybrid, hence
// failCgroupV1 false), the node's containerd, client certificates of the
// node's CA for the kubelet's API, no read-only port, a resolv.conf that
// points nowhere but the pod itself, and a 10s sync, so that a Secret volume's
// update reaches the pod within seconds rather than a minute (the kubelet
// refreshes the volume on the pod's periodic sync).
func (n *Node) kubeletConfig() string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://%s
port: %d
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: %d
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: false
  x509:
    clientCAFile: %q
authorization:
  mode: AlwaysAllow
resolvConf: %q
clusterDomain: cluster.local
syncFrequency: 10s
fileCheckFrequency: 10s
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 100Mi
  nodefs.available: "1%%"
  nodefs.inodesFree: "1%%"
  imagefs.available: "1%%"
maxPods: 30
podCIDR: %s
shutdownGracePeriod: 0s
`, n.ContainerdSocket, n.ports.kubelet, n.ports.kubeletHealthz, n.pki.caCert,
		filepath.Join(n.Dir, "resolv.conf"), PodCIDR)
}

// kubeProxyConfig: iptables mode, health and metrics on loopback ports of
// their own, no sysctl changes (conntrack left as the machine has it), and
// NodePorts on loopback only.
func (n *Node) kubeProxyConfig() string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection:
  kubeconfig: %q
hostnameOverride: %s
clusterCIDR: %s
healthzBindAddress: 127.0.0.1:%d
metricsBindAddress: 127.0.0.1:%d
nodePortAddresses: ["127.0.0.1/32"]
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
iptables:
  localhostNodePorts: false
`, n.Kubeconfig, NodeName, PodCIDR, n.ports.proxyHealthz, n.ports.proxyMetrics)
}

// kubeconfig is the admin kubeconfig (system:masters) every component and
// the tests use.
func (n *Node) kubeconfig(server string) string {
	enc := func(b []byte) string { return strings.TrimSpace(b64(b)) }
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: node
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: node
  context:
    cluster: node
    user: admin
current-context: node
`, server, enc(n.pki.caPEM), enc(n.pki.adminCertPEM), enc(n.pki.adminKeyPEM))
}
