package node

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// KubeVersion is the version of every Kubernetes binary of the node.
const KubeVersion = "1.37.2"

// Options configure Start.
type Options struct {
	// Root is the repository root (found from the working directory when empty).
	Root string
	// Progress receives one line per step (may be nil).
	Progress func(line string)
	// SetupOutput receives hack/node/setup.sh's progress (nil: Progress, line by line).
	SetupOutput io.Writer
	// Images are more OCI tarballs to import (setup.sh's two are always imported).
	Images []string
	// NoInstall builds what is missing but installs nothing (setup.sh
	// no-install): Start fails where Unavailable says why. For tests, which
	// install nothing (make test-node installs first).
	NoInstall bool
}

// Node is a running single-node cluster.
type Node struct {
	// Dir holds everything of this node: configs, logs (<component>.log), state.
	Dir string
	// Kubeconfig is the path of the admin kubeconfig; Config and Client use it.
	Kubeconfig string
	Config     *rest.Config
	Client     kubernetes.Interface
	// BinDir holds the Kubernetes binaries (kubectl among them); Helm is helm's path.
	BinDir, Helm string
	// NodeIP is this machine's own address the node registers and kube-apiserver listens on.
	NodeIP net.IP
	// ContainerdSocket is the node's containerd (for ctr -a).
	ContainerdSocket string
	// WebhookImage is the product image's reference, as imported.
	WebhookImage string

	root     string
	progress func(string)
	pki      *pki
	ports    ports
	procs    []*proc // in start order; stopped in reverse
	ipFwd    string  // net.ipv4.ip_forward before Start
	lock     *os.File
	netSetUp bool
	stopped  bool
}

type ports struct {
	etcd, etcdPeer, apiserver, kcm, scheduler, kubelet, kubeletHealthz, proxyHealthz, proxyMetrics int
}

type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// Unavailable says on one line why the node cannot run on this machine and
// how to run it (not Linux, not root, Debian's packages missing:
// hack/node/setup.sh check), or "" when it can. It changes nothing. root is
// the repository root (found from the working directory when empty).
func Unavailable(root string) (string, error) {
	if root == "" {
		var err error
		if root, err = repoRoot(); err != nil {
			return "", err
		}
	}
	out, err := exec.Command("bash", filepath.Join(root, "hack", "node", "setup.sh"), "check").Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return strings.TrimSpace(string(out)), nil
	case err != nil:
		return "", fmt.Errorf("hack/node/setup.sh check: %w", err)
	}
	return "", nil
}

// Start installs or builds what is missing (setup.sh), then starts the node
// and waits until it is Ready, kube-proxy serves, and the controller manager
// has published the root CA to the default namespace. On error everything
// already started is stopped and cleaned up.
func Start(ctx context.Context, opts Options) (_ *Node, retErr error) {
	n := &Node{root: opts.Root, progress: opts.Progress}
	if n.progress == nil {
		n.progress = func(string) {}
	}
	if n.root == "" {
		var err error
		if n.root, err = repoRoot(); err != nil {
			return nil, err
		}
	}
	n.BinDir = filepath.Join(n.root, "bin", "k8s", KubeVersion)
	n.Helm = filepath.Join(n.root, "bin", "helm", "3.22.0", "helm")
	if err := n.setup(ctx, opts.SetupOutput, opts.NoInstall); err != nil {
		return nil, err
	}
	if err := n.takeLock(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if retErr != nil {
			if err := n.Stop(); err != nil {
				retErr = fmt.Errorf("%w (and stopping: %v)", retErr, err)
			}
		}
	}()
	n.cleanStale()
	var err error
	if n.NodeIP, err = hostIP(); err != nil {
		return nil, err
	}
	if n.Dir, err = os.MkdirTemp("", "lsw-node-"); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(os.TempDir(), "lsw-node.dir"), []byte(n.Dir), 0o644); err != nil {
		return nil, err
	}
	n.ContainerdSocket = filepath.Join(n.Dir, "containerd.sock")
	if n.pki, err = newPKI(filepath.Join(n.Dir, "pki"),
		[]net.IP{net.ParseIP("127.0.0.1"), n.NodeIP, net.ParseIP(KubernetesServiceIP)},
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}); err != nil {
		return nil, err
	}
	if err := n.freePorts(); err != nil {
		return nil, err
	}
	n.step("network: pod bridge %s for %s and the ClusterIPs %s; forwarding off it dropped",
		podBridge, PodCIDR, ServiceCIDR)
	if err := n.setUpNetwork(); err != nil {
		return nil, err
	}

	n.step("starting etcd")
	if err := n.startEtcd(ctx); err != nil {
		return nil, err
	}
	n.step("starting kube-apiserver on %s:%d and 127.0.0.1:%d", n.NodeIP, n.ports.apiserver, n.ports.apiserver)
	if err := n.startAPIServer(ctx); err != nil {
		return nil, err
	}
	n.step("starting containerd (%s) and importing the images", n.ContainerdSocket)
	if err := n.startContainerd(ctx, opts.Images); err != nil {
		return nil, err
	}
	n.step("starting kube-controller-manager and kube-scheduler")
	if err := n.startControllers(); err != nil {
		return nil, err
	}
	n.step("starting the kubelet (node %s, %s)", NodeName, n.NodeIP)
	if err := n.startKubelet(ctx); err != nil {
		return nil, err
	}
	n.step("starting kube-proxy (iptables)")
	if err := n.startKubeProxy(ctx); err != nil {
		return nil, err
	}
	n.step("waiting for the root CA ConfigMap and the default ServiceAccount")
	if err := n.waitControllers(ctx); err != nil {
		return nil, err
	}
	n.step("node %s Ready; kubeconfig %s", NodeName, n.Kubeconfig)
	return n, nil
}

func (n *Node) step(format string, args ...any) { n.progress(fmt.Sprintf(format, args...)) }

func (n *Node) setup(ctx context.Context, out io.Writer, noInstall bool) error {
	args := []string{filepath.Join(n.root, "hack", "node", "setup.sh")}
	if noInstall {
		args = append(args, "no-install")
	}
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Dir = n.root
	var tail tailBuffer
	w := out
	if w == nil {
		pr, pw := io.Pipe()
		defer pw.Close()
		go func() {
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				n.progress(sc.Text())
			}
		}()
		w = pw
	}
	cmd.Stdout, cmd.Stderr = io.MultiWriter(w, &tail), io.MultiWriter(w, &tail)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("hack/node/setup.sh: %w\n%s", err, tail.String())
	}
	n.WebhookImage = chartImageRepository(n.root) + ":" + chartAppVersion(n.root)
	return nil
}

// takeLock: one node per machine (the bridge and kube-proxy's
// iptables rules are the machine's).
func (n *Node) takeLock(ctx context.Context) error {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "lsw-node.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		n.step("another node runs on this machine; waiting for it to stop")
		for {
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				f.Close()
				return ctx.Err()
			case <-time.After(time.Second):
			}
		}
	}
	n.lock = f
	return nil
}

// cleanStale removes what a node that was killed before its Stop left: its
// processes (by the pids it recorded), mounts, network and directory.
func (n *Node) cleanStale() {
	b, err := os.ReadFile(filepath.Join(os.TempDir(), "lsw-node.dir"))
	if err != nil {
		return
	}
	dir := strings.TrimSpace(string(b))
	if !strings.HasPrefix(filepath.Base(dir), "lsw-node-") {
		return
	}
	if _, err := os.Stat(dir); err != nil {
		return
	}
	n.step("cleaning up a node left by an earlier run in %s", dir)
	stale := &Node{Dir: dir, ContainerdSocket: filepath.Join(dir, "containerd.sock"), BinDir: n.BinDir, progress: n.progress, netSetUp: true}
	var pids []int
	if b, err := os.ReadFile(filepath.Join(dir, "pids")); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && cmdlineHas(pid, dir) {
				pids = append(pids, pid)
			}
		}
	}
	// The kubelet first, so that it restarts nothing; then the sandboxes
	// through the containerd still running; then the rest.
	for _, pid := range pids {
		if cmdlineHas(pid, "kubelet.yaml") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if err := stale.removeSandboxes(); err != nil {
		n.step("removing the earlier node's sandboxes: %v", err)
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	stale.killShims()
	if err := stale.cleanUp(); err != nil {
		n.step("cleaning up the earlier node: %v", err)
	}
}

func (n *Node) freePorts() error {
	ps := []*int{&n.ports.etcd, &n.ports.etcdPeer, &n.ports.apiserver, &n.ports.kcm, &n.ports.scheduler,
		&n.ports.kubelet, &n.ports.kubeletHealthz, &n.ports.proxyHealthz, &n.ports.proxyMetrics}
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for _, p := range ps {
		// All addresses: kube-apiserver and the kubelet listen on every one.
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			return err
		}
		ls = append(ls, l)
		*p = l.Addr().(*net.TCPAddr).Port
	}
	return nil
}

// start runs a component with its log in Dir/<name>.log and records its pid.
func (n *Node) start(name, bin string, args ...string) (*proc, error) {
	logPath := filepath.Join(n.Dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = n.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = append(os.Environ(), "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{}), log: logPath}
	go func() { _ = cmd.Wait(); f.Close(); close(p.done) }()
	n.procs = append(n.procs, p)
	pf, err := os.OpenFile(filepath.Join(n.Dir, "pids"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintln(pf, cmd.Process.Pid)
		pf.Close()
	}
	return p, nil
}

// wait polls cond until it returns nil, the process ends, or timeout.
func (n *Node) wait(ctx context.Context, p *proc, what string, timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		if last = cond(); last == nil {
			return nil
		}
		if p != nil {
			select {
			case <-p.done:
				return fmt.Errorf("%s exited while waiting for %s: %v\n%s", p.name, what, p.cmd.ProcessState, tailOf(p.log, 30))
			default:
			}
		}
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("%s: not within %s: %v", what, timeout, last)
			if p != nil {
				msg += "\n" + tailOf(p.log, 30)
			}
			return errors.New(msg)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
}

func (n *Node) startEtcd(ctx context.Context) error {
	client := fmt.Sprintf("http://127.0.0.1:%d", n.ports.etcd)
	peer := fmt.Sprintf("http://127.0.0.1:%d", n.ports.etcdPeer)
	p, err := n.start("etcd", filepath.Join(n.BinDir, "etcd"),
		"--name=node", "--data-dir="+filepath.Join(n.Dir, "etcd"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=node="+peer, "--unsafe-no-fsync", "--log-level=warn")
	if err != nil {
		return err
	}
	return n.wait(ctx, p, "etcd /health", time.Minute, answersOK(client+"/health"))
}

// answersOK is a readiness check: a plain HTTP GET of url answers 200.
func answersOK(url string) func() error {
	return func() error {
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
}

func (n *Node) startAPIServer(ctx context.Context) error {
	p, err := n.start("kube-apiserver", filepath.Join(n.BinDir, "kube-apiserver"),
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", n.ports.etcd),
		"--bind-address=0.0.0.0", fmt.Sprintf("--secure-port=%d", n.ports.apiserver),
		"--advertise-address="+n.NodeIP.String(),
		"--tls-cert-file="+n.pki.servingCert, "--tls-private-key-file="+n.pki.servingKey,
		"--client-ca-file="+n.pki.caCert,
		"--kubelet-client-certificate="+n.pki.adminCert, "--kubelet-client-key="+n.pki.adminKey,
		// The node's address, never its name: a name would be looked up in the machine's DNS.
		"--kubelet-preferred-address-types=InternalIP",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+n.pki.saPub, "--service-account-signing-key-file="+n.pki.saKey,
		"--service-cluster-ip-range="+ServiceCIDR,
		"--authorization-mode=RBAC", "--allow-privileged=true", "--profiling=false",
		"--cert-dir="+filepath.Join(n.Dir, "apiserver-certs"))
	if err != nil {
		return err
	}
	n.Kubeconfig = filepath.Join(n.Dir, "kubeconfig")
	if err := os.WriteFile(n.Kubeconfig, []byte(n.kubeconfig(fmt.Sprintf("https://127.0.0.1:%d", n.ports.apiserver))), 0o600); err != nil {
		return err
	}
	if n.Config, err = clientcmd.BuildConfigFromFlags("", n.Kubeconfig); err != nil {
		return err
	}
	n.Config.QPS, n.Config.Burst = 100, 200
	if n.Client, err = kubernetes.NewForConfig(n.Config); err != nil {
		return err
	}
	return n.wait(ctx, p, "kube-apiserver /readyz", 2*time.Minute, func() error {
		return n.Client.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	})
}

func (n *Node) startContainerd(ctx context.Context, images []string) error {
	cfg := filepath.Join(n.Dir, "containerd.toml")
	if err := writeFile(cfg, n.containerdConfig()); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(n.Dir, "cni", "10-lsw-pods.conflist"), n.cniConfig()); err != nil {
		return err
	}
	// Nothing a pod resolves leaves its own network namespace.
	if err := writeFile(filepath.Join(n.Dir, "resolv.conf"), "nameserver 127.0.0.1\n"); err != nil {
		return err
	}
	p, err := n.start("containerd", "/usr/bin/containerd", "--config", cfg)
	if err != nil {
		return err
	}
	if err := n.wait(ctx, p, "containerd's socket", time.Minute, func() error {
		return exec.Command("ctr", "-a", n.ContainerdSocket, "version").Run()
	}); err != nil {
		return err
	}
	images = append([]string{
		filepath.Join(n.root, "bin", "image", "pause.tar"),
		filepath.Join(n.root, "bin", "image", "listenerset-webhook.tar"),
	}, images...)
	for _, img := range images {
		if out, err := exec.CommandContext(ctx, "ctr", "-a", n.ContainerdSocket, "-n", "k8s.io",
			"images", "import", img).CombinedOutput(); err != nil {
			return fmt.Errorf("ctr images import %s: %w\n%s", img, err, out)
		}
	}
	return nil
}

func (n *Node) startControllers() error {
	if _, err := n.start("kube-controller-manager", filepath.Join(n.BinDir, "kube-controller-manager"),
		"--kubeconfig="+n.Kubeconfig, "--authentication-kubeconfig="+n.Kubeconfig, "--authorization-kubeconfig="+n.Kubeconfig,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", n.ports.kcm),
		"--service-account-private-key-file="+n.pki.saKey, "--root-ca-file="+n.pki.caCert,
		"--use-service-account-credentials=false", "--leader-elect=false",
		"--service-cluster-ip-range="+ServiceCIDR,
		"--cert-dir="+filepath.Join(n.Dir, "kcm-certs")); err != nil {
		return err
	}
	_, err := n.start("kube-scheduler", filepath.Join(n.BinDir, "kube-scheduler"),
		"--kubeconfig="+n.Kubeconfig, "--authentication-kubeconfig="+n.Kubeconfig, "--authorization-kubeconfig="+n.Kubeconfig,
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", n.ports.scheduler), "--leader-elect=false",
		"--cert-dir="+filepath.Join(n.Dir, "scheduler-certs"))
	return err
}

func (n *Node) startKubelet(ctx context.Context) error {
	cfg := filepath.Join(n.Dir, "kubelet.yaml")
	if err := writeFile(cfg, n.kubeletConfig()); err != nil {
		return err
	}
	p, err := n.start("kubelet", filepath.Join(n.BinDir, "kubelet"),
		"--config="+cfg, "--kubeconfig="+n.Kubeconfig, "--root-dir="+filepath.Join(n.Dir, "kubelet"),
		"--node-ip="+n.NodeIP.String(), "--hostname-override="+NodeName, "--v=1")
	if err != nil {
		return err
	}
	return n.wait(ctx, p, "node "+NodeName+" Ready", 3*time.Minute, func() error {
		node, err := n.Client.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				if c.Status == corev1.ConditionTrue {
					return nil
				}
				return fmt.Errorf("condition Ready is %s: %s", c.Status, c.Message)
			}
		}
		return errors.New("no Ready condition yet")
	})
}

func (n *Node) startKubeProxy(ctx context.Context) error {
	cfg := filepath.Join(n.Dir, "kube-proxy.yaml")
	if err := writeFile(cfg, n.kubeProxyConfig()); err != nil {
		return err
	}
	p, err := n.start("kube-proxy", filepath.Join(n.BinDir, "kube-proxy"), "--config="+cfg)
	if err != nil {
		return err
	}
	return n.wait(ctx, p, "kube-proxy /healthz", 2*time.Minute, answersOK(fmt.Sprintf("http://127.0.0.1:%d/healthz", n.ports.proxyHealthz)))
}

func (n *Node) waitControllers(ctx context.Context) error {
	var kcm *proc
	for _, p := range n.procs {
		if p.name == "kube-controller-manager" {
			kcm = p
		}
	}
	return n.wait(ctx, kcm, "kube-root-ca.crt and the default ServiceAccount in namespace default", 2*time.Minute, func() error {
		if _, err := n.Client.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); err != nil {
			return err
		}
		_, err := n.Client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err
	})
}

// TrustRegistry makes the node's containerd pull from the registry at host
// (host:port, e.g. 127.0.0.1:5000) over HTTPS, trusting the PEM CA
// certificates caPEM for it: a hosts.toml under Dir/certs.d, which the CRI
// reads on every pull, so that it applies to the next pull without a
// restart. Without it the registry's certificate is checked against the
// machine's roots. The returned func removes it again.
func (n *Node) TrustRegistry(host string, caPEM []byte) (untrust func() error, err error) {
	if _, _, err := net.SplitHostPort(host); err != nil {
		return nil, fmt.Errorf("registry %q: want host:port: %w", host, err)
	}
	dir := filepath.Join(n.registryHostsDir(), host)
	ca := filepath.Join(dir, "ca.crt")
	if err := writeFile(ca, string(caPEM)); err != nil {
		return nil, err
	}
	if err := writeFile(filepath.Join(dir, "hosts.toml"), registryHosts(host, ca)); err != nil {
		return nil, err
	}
	return func() error { return os.RemoveAll(dir) }, nil
}

// Log returns the last lines of a component's log (etcd, kube-apiserver,
// containerd, kube-controller-manager, kube-scheduler, kubelet, kube-proxy).
func (n *Node) Log(component string, lines int) string {
	return tailOf(filepath.Join(n.Dir, component+".log"), lines)
}

// Kubectl runs the node's kubectl with the admin kubeconfig.
func (n *Node) Kubectl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(n.BinDir, "kubectl"), append([]string{"--kubeconfig", n.Kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
