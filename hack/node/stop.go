package node

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// Stop stops and removes everything Start made, in this order: the kubelet
// (so that it restarts no pod), every pod sandbox through containerd's CRI
// (its containers, mounts and network namespace), containerd and any shim
// left, kube-proxy and its iptables rules, the control plane, then the mounts
// still under Dir, the bridge (and the routes on it), the FORWARD rules, the kubelet's iptables chains, ip_forward as it
// was, the kubelet's cgroups and Dir itself. It is safe to call twice.
func (n *Node) Stop() error {
	if n.stopped {
		return nil
	}
	n.stopped = true
	var errs []error
	n.stopProc("kubelet")
	if n.ContainerdSocket != "" {
		if err := n.removeSandboxes(); err != nil {
			errs = append(errs, err)
		}
	}
	n.stopProc("containerd")
	n.killShims()
	n.stopProc("kube-proxy")
	for i := len(n.procs) - 1; i >= 0; i-- {
		n.stopProc(n.procs[i].name)
	}
	if err := n.cleanUp(); err != nil {
		errs = append(errs, err)
	}
	if n.lock != nil {
		n.lock.Close()
	}
	return errors.Join(errs...)
}

func (n *Node) stopProc(name string) {
	for _, p := range n.procs {
		if p.name != name {
			continue
		}
		select {
		case <-p.done:
			continue
		default:
		}
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
	}
}

// removeSandboxes stops and removes every pod sandbox through the CRI: the
// containers, their mounts and the network namespaces go with them, and the
// CNI plugins release the addresses.
func (n *Node) removeSandboxes() error {
	if _, err := os.Stat(n.ContainerdSocket); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := grpc.NewClient("unix://"+n.ContainerdSocket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	rt := runtimeapi.NewRuntimeServiceClient(conn)
	list, err := rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return fmt.Errorf("CRI ListPodSandbox: %w", err)
	}
	var errs []error
	for _, sb := range list.Items {
		if _, err := rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			errs = append(errs, fmt.Errorf("CRI StopPodSandbox %s/%s: %w", sb.Metadata.GetNamespace(), sb.Metadata.GetName(), err))
		}
		if _, err := rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: sb.Id}); err != nil {
			errs = append(errs, fmt.Errorf("CRI RemovePodSandbox %s/%s: %w", sb.Metadata.GetNamespace(), sb.Metadata.GetName(), err))
		}
	}
	if len(list.Items) > 0 {
		n.step("removed %d pod sandboxes", len(list.Items))
	}
	return errors.Join(errs...)
}

// killShims kills containerd-shim processes of this node's containerd (they
// outlive it by design), found by the socket address on their command line.
func (n *Node) killShims() {
	if n.ContainerdSocket == "" {
		return
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(b), "\x00")
		if len(args) > 0 && strings.HasPrefix(filepath.Base(args[0]), "containerd-shim") && strings.Contains(string(b), n.ContainerdSocket) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func cmdlineHas(pid int, s string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && strings.Contains(string(b), s)
}

// setUpNetwork makes the pod bridge (the CNI bridge plugin then uses it),
// routes ServiceCIDR to it, and drops forwarding between the bridge and
// anything else, before any pod exists. A ClusterIP packet kube-proxy did not
// translate so lands on the bridge, which only this node's pods are on.
func (n *Node) setUpNetwork() error {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_forward")
	if err != nil {
		return err
	}
	n.ipFwd = strings.TrimSpace(string(b))
	n.netSetUp = true
	for _, args := range [][]string{
		{"ip", "link", "add", podBridge, "type", "bridge"},
		{"ip", "link", "set", podBridge, "up"},
		{"ip", "route", "add", ServiceCIDR, "dev", podBridge},
		{"iptables", "-w", "-I", "FORWARD", "1", "-i", podBridge, "!", "-o", podBridge, "-j", "DROP", "-m", "comment", "--comment", "lsw-node"},
		{"iptables", "-w", "-I", "FORWARD", "1", "-o", podBridge, "!", "-i", podBridge, "-j", "DROP", "-m", "comment", "--comment", "lsw-node"},
		// kube-apiserver and the kubelet listen on every address (the pods
		// reach kube-apiserver at the node's): only this machine and its pods
		// may connect.
		{"iptables", "-w", "-I", "INPUT", "1", "-p", "tcp", "-m", "multiport", "--dports",
			fmt.Sprintf("%d,%d", n.ports.apiserver, n.ports.kubelet), "!", "-s", PodCIDR,
			"-m", "addrtype", "!", "--src-type", "LOCAL", "-j", "DROP", "-m", "comment", "--comment", "lsw-node"},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// cleanUp removes what the processes leave behind.
func (n *Node) cleanUp() error {
	var errs []error
	if n.Dir != "" {
		if err := unmountUnder(n.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	if n.netSetUp {
		if n.Dir != "" {
			if cfg := filepath.Join(n.Dir, "kube-proxy.yaml"); fileExists(cfg) {
				if out, err := exec.Command(filepath.Join(n.BinDir, "kube-proxy"), "--cleanup", "--config="+cfg).CombinedOutput(); err != nil {
					errs = append(errs, fmt.Errorf("kube-proxy --cleanup: %w\n%s", err, out))
				}
			}
		}
		_ = exec.Command("ip", "link", "del", podBridge).Run()
		removeOwnRules()
		removeKubeletChains()
		if n.ipFwd != "" {
			_ = os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte(n.ipFwd), 0o644)
		}
	}
	removeKubeletCgroups()
	if n.Dir != "" {
		if err := os.RemoveAll(n.Dir); err != nil {
			errs = append(errs, err)
		}
		_ = os.Remove(filepath.Join(os.TempDir(), "lsw-node.dir"))
	}
	return errors.Join(errs...)
}

// removeOwnRules deletes the rules setUpNetwork added (commented lsw-node),
// also those of an earlier node whose ports are no longer known.
func removeOwnRules() {
	for _, chain := range []string{"INPUT", "FORWARD"} {
		out, err := exec.Command("iptables", "-w", "-S", chain).Output()
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) > 2 && f[0] == "-A" && strings.Contains(line, "--comment lsw-node") {
				_ = exec.Command("iptables", append([]string{"-w", "-D"}, f[1:]...)...).Run()
			}
		}
	}
}

// removeKubeletChains removes the iptables chains the kubelet makes (and
// does not remove): KUBE-FIREWALL with its INPUT and OUTPUT jumps,
// KUBE-KUBELET-CANARY and KUBE-IPTABLES-HINT, for IPv4 and IPv6.
func removeKubeletChains() {
	for _, bin := range []string{"iptables", "ip6tables"} {
		run := func(args ...string) error { return exec.Command(bin, append([]string{"-w"}, args...)...).Run() }
		for _, chain := range []string{"INPUT", "OUTPUT"} {
			for run("-t", "filter", "-D", chain, "-j", "KUBE-FIREWALL") == nil {
			}
		}
		for _, tc := range [][2]string{{"filter", "KUBE-FIREWALL"}, {"filter", "KUBE-KUBELET-CANARY"},
			{"nat", "KUBE-KUBELET-CANARY"}, {"mangle", "KUBE-KUBELET-CANARY"}, {"mangle", "KUBE-IPTABLES-HINT"}} {
			if run("-t", tc[0], "-F", tc[1]) == nil {
				_ = run("-t", tc[0], "-X", tc[1])
			}
		}
	}
}

// unmountUnder detaches every mount below dir, deepest first.
func unmountUnder(dir string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	var mounts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 {
			mp := unescapeMount(fields[4])
			if mp == dir || strings.HasPrefix(mp, dir+"/") {
				mounts = append(mounts, mp)
			}
		}
	}
	sort.Slice(mounts, func(i, j int) bool { return len(mounts[i]) > len(mounts[j]) })
	var errs []error
	for _, m := range mounts {
		if err := syscall.Unmount(m, unmountFlags); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", m, err))
		}
	}
	return errors.Join(errs...)
}

func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// removeKubeletCgroups removes the kubepods hierarchy the kubelet made in
// each cgroup v1 controller (and the unified one), leaves first; only empty
// cgroups can be removed, so nothing that still runs is touched.
func removeKubeletCgroups() {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods")
	if fileExists("/sys/fs/cgroup/kubepods") {
		roots = append(roots, "/sys/fs/cgroup/kubepods")
	}
	for _, r := range roots {
		var dirs []string
		_ = filepath.WalkDir(r, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			_ = syscall.Rmdir(dirs[i])
		}
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// hostIP is this machine's own IPv4 address: the one of the interface its
// default route uses (from /proc/net/route; nothing is sent), else the first
// global unicast address of an interface that is up.
func hostIP() (net.IP, error) {
	if b, err := os.ReadFile("/proc/net/route"); err == nil {
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 2 && f[1] == "00000000" {
				if ip := ipv4Of(f[0]); ip != nil {
					return ip, nil
				}
			}
		}
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	for _, i := range ifs {
		if i.Flags&net.FlagUp != 0 && i.Flags&net.FlagLoopback == 0 {
			if ip := ipv4Of(i.Name); ip != nil {
				return ip, nil
			}
		}
	}
	return nil, errors.New("no IPv4 address on this machine for the node (the kubelet refuses loopback)")
}

func ipv4Of(name string) net.IP {
	i, err := net.InterfaceByName(name)
	if err != nil {
		return nil
	}
	addrs, _ := i.Addrs()
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && ipn.IP.IsGlobalUnicast() {
			return ipn.IP.To4()
		}
	}
	return nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fileExists(filepath.Join(dir, "hack", "node", "setup.sh")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (with hack/node/setup.sh) not found above the working directory")
		}
		dir = parent
	}
}

func chartAppVersion(root string) string {
	b, _ := os.ReadFile(filepath.Join(root, "charts", "listenerset-webhook", "Chart.yaml"))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "appVersion:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return "latest"
}

// chartImageRepository is the chart's default image.repository, the name
// make image gives the image that setup.sh imports.
func chartImageRepository(root string) string {
	b, _ := os.ReadFile(filepath.Join(root, "charts", "listenerset-webhook", "values.yaml"))
	inImage := false
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, " ") && !strings.HasPrefix(l, "#") {
			inImage = strings.HasPrefix(l, "image:")
		}
		if v, ok := strings.CutPrefix(l, "  repository:"); ok && inImage {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return "listenerset-webhook"
}

// tailBuffer keeps the last 16 KiB written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 16<<10 {
		t.b = t.b[len(t.b)-16<<10:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { t.mu.Lock(); defer t.mu.Unlock(); return string(t.b) }

func tailOf(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	ls := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return path + ":\n  " + strings.Join(ls, "\n  ")
}
