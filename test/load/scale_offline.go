package main

// The offline scale figure (go run ./test/load -offline-scale):
// `kubectl listenerset validate -f DIR` of one Gateway shared by N
// ListenerSets, timed as a user runs it. The cluster-aware rules judge every
// ListenerSet against the others of the input, so a rule that looks at every
// rival makes the command quadratic in N.

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/airlock/listenerset-webhook/test/testproc"
)

var (
	offlineScale      = flag.Bool("offline-scale", false, "run the offline scale figure only: `validate -f DIR` of one Gateway with N ListenerSets (4 listeners each, no conflicts), for each of -offline-sizes")
	offlineSizes      = flag.String("offline-sizes", "1000,2000,5000,10000", "offline scale figure: numbers of ListenerSets, comma-separated")
	offlineNamespaces = flag.Int("offline-namespaces", 100, "offline scale figure: tenant namespaces the ListenerSets are spread over")
	offlineGenerate   = flag.String("offline-generate", "", "write the offline scale figure's directory for -offline-sizes' first size into this directory and exit")
)

// offlineGatewayNS is the namespace of the shared Gateway.
const offlineGatewayNS = "gateway-infra"

// writeOfflineScale writes dir: gateway.yaml (the Gateway, admitting the
// labelled tenant namespaces, and those namespaces) and one file per
// ListenerSet with its Secret, as a GitOps repository holds them. ListenerSet
// i is in namespace tenant-(i mod namespaces), with HTTP on 80 and 8080 and
// HTTPS on 443 and 8443, all on its own hostname, so none conflicts; the
// manifests carry no creation time, so namespace/name orders them.
func writeOfflineScale(dir string, n, namespaces int) error {
	if err := os.MkdirAll(filepath.Join(dir, "tenants"), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  namespace: %s
  name: shared
spec:
  gatewayClassName: airlock
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    hostname: gateway.example.com
  allowedListeners:
    namespaces:
      from: Selector
      selector:
        matchLabels:
          tenant: "true"
`, offlineGatewayNS)
	for k := range namespaces {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels:\n    tenant: \"true\"\n", offlineTenant(k))
	}
	if err := os.WriteFile(filepath.Join(dir, "gateway.yaml"), b.Bytes(), 0o644); err != nil {
		return err
	}
	for i := range n {
		b.Reset()
		ns, name := offlineTenant(i%namespaces), fmt.Sprintf("ls-%05d", i)
		host := name + ".example.com"
		fmt.Fprintf(&b, `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata:
  namespace: %[1]s
  name: %[2]s
spec:
  parentRef:
    namespace: %[3]s
    name: shared
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    hostname: %[4]s
  - name: https
    port: 443
    protocol: HTTPS
    hostname: %[4]s
    tls:
      certificateRefs:
      - name: %[2]s-tls
  - name: http-alt
    port: 8080
    protocol: HTTP
    hostname: %[4]s
  - name: https-alt
    port: 8443
    protocol: HTTPS
    hostname: %[4]s
    tls:
      certificateRefs:
      - name: %[2]s-tls
---
apiVersion: v1
kind: Secret
metadata:
  namespace: %[1]s
  name: %[2]s-tls
type: kubernetes.io/tls
`, ns, name, offlineGatewayNS, host)
		if err := os.WriteFile(filepath.Join(dir, "tenants", name+".yaml"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func offlineTenant(k int) string { return fmt.Sprintf("tenant-%03d", k) }

type offlineResult struct {
	ListenerSets int     `json:"listenerSets"`
	WallSeconds  float64 `json:"wallSeconds"`
	CPUSeconds   float64 `json:"cpuSeconds"`
	MaxRSSMiB    float64 `json:"maxRssMiB"`
	OutputBytes  int     `json:"outputBytes"`
	ExitCode     int     `json:"exitCode"`

	stderr string
}

// timeValidate runs `bin validate -f dir` and measures it (timeRun); it
// must exit 0.
func timeValidate(ctx context.Context, bin, dir string) (offlineResult, error) {
	r, err := timeRun(ctx, bin, "validate", "-f", dir)
	if err == nil && r.ExitCode != 0 {
		err = fmt.Errorf("validate -f %s: exit %d (want 0: the input has no conflict): %s", dir, r.ExitCode, r.stderr)
	}
	return r, err
}

// timeRun runs bin with args and measures it: wall time, the process's
// user+system CPU and peak RSS (rusage), the bytes it printed, its exit
// code and (trimmed) stderr. Only a process that cannot run is an error.
func timeRun(ctx context.Context, bin string, args ...string) (offlineResult, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var out countingWriter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	t0 := time.Now()
	err := cmd.Run()
	r := offlineResult{WallSeconds: time.Since(t0).Seconds(), OutputBytes: out.n, stderr: strings.TrimSpace(stderr.String())}
	if cmd.ProcessState == nil {
		return r, err
	}
	r.ExitCode = cmd.ProcessState.ExitCode()
	r.CPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSSMiB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	return r, nil
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)

func runOfflineScale(ctx context.Context, o options) (int, error) {
	sizes, err := parseSizes(*offlineSizes)
	if err != nil {
		return 0, err
	}
	if *offlineNamespaces < 1 {
		return 0, fmt.Errorf("-offline-namespaces must be positive")
	}
	if *offlineGenerate != "" {
		return 0, writeOfflineScale(*offlineGenerate, sizes[0], *offlineNamespaces)
	}
	root, abs, err := repoPaths()
	if err != nil {
		return 0, err
	}
	o.pluginBin, o.outDir = abs(o.pluginBin), abs(o.outDir)
	if o.build {
		say("offline-scale: building %s", testproc.PluginPackage)
		if err := testproc.Build(ctx, o.pluginBin, testproc.PluginPackage, "-trimpath"); err != nil {
			return 0, err
		}
	}
	m := describeMachine(root)
	say("offline-scale: commit %s, load average %s; sizes %v", m.Commit, m.LoadAvgStart, sizes)
	fmt.Printf("%-12s %8s %8s %10s %10s  %s\n", "ListenerSets", "wall s", "CPU s", "maxRSS MiB", "output B", "ms per ListenerSet")
	var results []offlineResult
	for _, n := range sizes {
		dir := filepath.Join(o.outDir, "offline-scale", strconv.Itoa(n))
		if err := os.RemoveAll(dir); err != nil {
			return 0, err
		}
		if err := writeOfflineScale(dir, n, *offlineNamespaces); err != nil {
			return 0, err
		}
		r, err := timeValidate(ctx, o.pluginBin, dir)
		r.ListenerSets = n
		if err != nil {
			return 1, err
		}
		results = append(results, r)
		perLS := 0.0
		if n > 0 {
			perLS = r.WallSeconds * 1000 / float64(n)
		}
		fmt.Printf("%-12d %8.2f %8.2f %10.1f %10d  %.2f\n", n, r.WallSeconds, r.CPUSeconds, r.MaxRSSMiB, r.OutputBytes, perLS)
	}
	fmt.Printf("load average: %s at start, %s at end; commit %s\n", m.LoadAvgStart, loadAvg(), m.Commit)
	last := results[len(results)-1]
	if last.ListenerSets == 10000 && last.WallSeconds > 10 {
		fmt.Printf("target missed: validate of 10 000 ListenerSets on one Gateway took %.2f s (target <= 10 s)\n", last.WallSeconds)
	}
	return 0, nil
}
