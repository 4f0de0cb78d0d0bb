// Package testproc runs servers on this machine's loopback for the tests and
// the load tool: free ports and the serve flags that put a webhook server on
// them, a readiness probe of /readyz, `go build` of the server and the kubectl
// plugin (once per test binary), a process started, signalled, waited for and stopped
// the way the kubelet stops a pod (SIGTERM, then SIGKILL), and the non-Go
// tools make ci-tools installs (CITool).
//
// It imports nothing of the product and not the testing package, so that
// the load tool (a command) and test/localcluster can use it as well.
package testproc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Ports are the loopback ports of one webhook server: the webhooks (HTTPS),
// the health probes and the metrics. `listenerset-webhook serve` and the
// load tool's floor take the same flags for them.
type Ports struct{ Webhook, Health, Metrics int }

// NewPorts picks three ports that were free a moment ago.
func NewPorts() (Ports, error) {
	var p Ports
	for _, port := range []*int{&p.Webhook, &p.Health, &p.Metrics} {
		var err error
		if *port, err = FreePort(); err != nil {
			return Ports{}, err
		}
	}
	return p, nil
}

func loopback(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

// Addr is the webhooks' host:port on loopback.
func (p Ports) Addr() string { return loopback(p.Webhook) }

// HealthAddr is host:port of /healthz and /readyz.
func (p Ports) HealthAddr() string { return loopback(p.Health) }

// MetricsAddr is host:port of /metrics.
func (p Ports) MetricsAddr() string { return loopback(p.Metrics) }

// ReadyzURL is the readiness probe's URL.
func (p Ports) ReadyzURL() string { return "http://" + p.HealthAddr() + "/readyz" }

// Flags put a server on the ports: --port, and the health and metrics
// servers on loopback. The webhooks' host is the caller's to add:
// --host=127.0.0.1, or nothing for a replica that kube-apiserver must reach
// at this machine's address.
func (p Ports) Flags() []string {
	return []string{
		"--port=" + strconv.Itoa(p.Webhook),
		"--health-probe-bind-address=" + p.HealthAddr(),
		"--metrics-bind-address=" + p.MetricsAddr(),
	}
}

// Ready asks url (a /readyz) once whether the server is ready, as a kubelet's
// readiness probe does: an answer 200 within timeout.
func Ready(url string, timeout time.Duration) bool {
	c := http.Client{Timeout: timeout}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// WaitReady probes url (a /readyz) every 50ms until it answers 200. It gives
// up with an error when ended, asked before each probe, reports that the
// server stopped (the server's own end: a process's Ended, or an in-process
// server's returned error), when timeout has passed or when ctx is done.
func WaitReady(ctx context.Context, url string, timeout time.Duration, ended func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := ended(); err != nil {
			return fmt.Errorf("ended before it was ready: %w", err)
		}
		if Ready(url, 5*time.Second) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer 200 within %s", url, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Returned is the ended of WaitReady for a server run in this process by a
// goroutine that sends its run function's result on done (buffered, room
// for one): nil while it runs; once it has returned, an error that says so,
// and the result stays on done for the next reader.
func Returned(done chan error) func() error {
	return func() error {
		select {
		case err := <-done:
			done <- err
			return fmt.Errorf("returned %v", err)
		default:
			return nil
		}
	}
}

// ServeDrain is the --shutdown-timeout tests and `make run` (hack/run, in
// process or as a binary) give the webhook: the default
// (serving.DefaultShutdownTimeout) waits up to 95 s for the clients' idle
// connections to end, which a test stopping its server between cases, or
// Ctrl-C, need not: there are no endpoints to leave and no rollout's
// requests in flight (and make run's stop waits less than 95 s).
const ServeDrain = 5 * time.Second

// ServeFlags are the flags tests give `serve` before their own (a later
// flag wins). The scope is off (--scope=all): most tests post reviews
// straight to the port or run without the Kubernetes API, which the
// scope by GatewayClass reads; a test of the scope, or of the webhook as
// installed, adds --scope=class and --kubeconfig.
func ServeFlags() []string {
	return []string{"--shutdown-timeout=" + ServeDrain.String(), "--scope=all"}
}

// WebhookPackage is the served binary's import path; PluginPackage is the
// kubectl plugin's (the offline commands); LoadToolPackage the load tool's
// (test/load).
const (
	WebhookPackage  = "github.com/airlock/listenerset-webhook/cmd/listenerset-webhook"
	PluginPackage   = "github.com/airlock/listenerset-webhook/cmd/kubectl-listenerset"
	LoadToolPackage = "github.com/airlock/listenerset-webhook/test/load"
)

// Build runs `go build -o out` of pkg (an import path of this module; go runs
// in the working directory, which tests and the load tool have inside the
// module) with extra build flags first, and returns go's output with its
// error.
func Build(ctx context.Context, out, pkg string, flags ...string) error {
	args := append(append([]string{"build"}, flags...), "-o", out, pkg)
	if b, err := exec.CommandContext(ctx, "go", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// builtBinary is one package built once per process.
type builtBinary struct {
	pkg  string
	once sync.Once
	dir  string
	path string
	err  error
}

var (
	webhookBinary  = builtBinary{pkg: WebhookPackage}
	pluginBinary   = builtBinary{pkg: PluginPackage}
	loadToolBinary = builtBinary{pkg: LoadToolPackage}
)

// WebhookBinary builds cmd/listenerset-webhook into a temporary directory
// the first time it is called in a process and returns its path; later
// calls return the same binary, or the same error. RemoveBinaries removes
// it (from TestMain, after m.Run).
func WebhookBinary() (string, error) { return webhookBinary.build() }

// PluginBinary is WebhookBinary for cmd/kubectl-listenerset; the file is
// named kubectl-listenerset, so that its directory on PATH makes it
// `kubectl listenerset`.
func PluginBinary() (string, error) { return pluginBinary.build() }

// LoadToolBinary is WebhookBinary for the load tool, whose -cluster-load
// mode the chart tests run against their clusters.
func LoadToolBinary() (string, error) { return loadToolBinary.build() }

func (b *builtBinary) build() (string, error) {
	b.once.Do(func() {
		name := path.Base(b.pkg)
		if b.dir, b.err = os.MkdirTemp("", name+"-bin-"); b.err != nil {
			return
		}
		// Minutes on a busy 2-core machine when the build cache is cold.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		out := filepath.Join(b.dir, name)
		if b.err = Build(ctx, out, b.pkg); b.err == nil {
			b.path = out
		}
	})
	return b.path, b.err
}

// RemoveBinaries removes what WebhookBinary, PluginBinary and
// LoadToolBinary built, if anything.
func RemoveBinaries() {
	for _, b := range []*builtBinary{&webhookBinary, &pluginBinary, &loadToolBinary} {
		if b.dir != "" {
			_ = os.RemoveAll(b.dir)
		}
	}
}

// CITool is the path of a tool hack/ci-tools.sh pins (sarif-multitool,
// pre-commit) as installed on this machine, found by `hack/ci-tools.sh path`
// under the repository root. When it is not installed, missing says why and
// how to get it (make ci-tools), for the test to skip with: a test installs
// nothing.
func CITool(root, name string) (path, missing string, err error) {
	out, err := exec.Command(filepath.Join(root, "hack", "ci-tools.sh"), "path", name).Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return "", strings.TrimSpace(string(out)), nil
	case err != nil:
		return "", "", fmt.Errorf("hack/ci-tools.sh path %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), "", nil
}

// Process is a started command, reaped in the background.
type Process struct {
	cmd      *exec.Cmd
	logPath  string
	done     chan struct{} // closed when it has exited
	exitErr  error         // cmd.Wait's, once done
	exitedAt time.Time
}

// Start starts cmd. When logPath is not empty, the process's stdout and
// stderr go to that new file, closed when it exits; otherwise they are what
// cmd says.
func Start(cmd *exec.Cmd, logPath string) (*Process, error) {
	p := &Process{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	var logFile *os.File
	if logPath != "" {
		var err error
		if logFile, err = os.Create(logPath); err != nil {
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = logFile, logFile
	}
	if err := cmd.Start(); err != nil {
		if logFile != nil {
			logFile.Close()
		}
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	go func() {
		p.exitErr = cmd.Wait()
		p.exitedAt = time.Now()
		if logFile != nil {
			logFile.Close()
		}
		close(p.done)
	}()
	return p, nil
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Ended is nil while the process runs, and says how it exited once it has
// ("exit status 0" too: for a server, any exit is an end).
func (p *Process) Ended() error {
	select {
	case <-p.done:
		if p.exitErr == nil {
			return errors.New("exit status 0")
		}
		return p.exitErr
	default:
		return nil
	}
}

// Wait waits up to timeout for the process to exit and reports whether it
// has.
func (p *Process) Wait(timeout time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// ExitErr is cmd.Wait's error once the process has exited: nil for exit
// status 0.
func (p *Process) ExitErr() error {
	<-p.done
	return p.exitErr
}

// ExitCode is the exit status, or -1 while the process runs (or when a
// signal ended it).
func (p *Process) ExitCode() int {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// ExitedAt is when the process was seen to exit (zero while it runs).
func (p *Process) ExitedAt() time.Time {
	select {
	case <-p.done:
		return p.exitedAt
	default:
		return time.Time{}
	}
}

// Signal sends sig to the process.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Stop sends SIGTERM, as the kubelet does, and waits up to grace for the
// process to exit; then it kills it and returns an error that says so. A
// process that has already exited is left as it is.
func (p *Process) Stop(grace time.Duration) error {
	_ = p.Signal(syscall.SIGTERM)
	if p.Wait(grace) {
		return nil
	}
	p.Kill()
	return fmt.Errorf("%s (pid %d) ignored SIGTERM for %s; killed", filepath.Base(p.cmd.Path), p.Pid(), grace)
}

// Kill kills the process and waits until it has exited.
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Log is what the process has written to its log file so far ("" without one).
func (p *Process) Log() string {
	if p.logPath == "" {
		return ""
	}
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

// CPUTime is this process's CPU time, user and system, of every thread (the
// garbage collector's too): what a benchmark reports as cpu-ns/op on a
// machine other work shares, where wall time grows with the load.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
