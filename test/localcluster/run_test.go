//go:build unix

package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/test/testproc"
)

// What `make run` (hack/run) prints, line by line: one progress line per
// step, the instructions, and one line per step of the shutdown. Nothing else
// may appear: envtest's, controller-runtime's, klog's and the webhook's logs
// belong in the log file.
var (
	runProgress   = regexp.MustCompile(`^\[run \d\d:\d\d:\d\d\] (.*)$`)
	runStartSteps = []string{
		`finding or building kube-apiserver, kubectl and etcd with hack/k8s-binaries\.sh \(a first build takes 6 to 26 minutes on 2 cores\)`,
		`starting etcd and kube-apiserver from \S+`,
		`installing the Gateway API standard CRDs from \S+/config/crd/standard`,
		`starting the webhook on https://127\.0\.0\.1:\d+ \(in this process; its log: (?P<log>\S+)\)`,
		`registering the mutating and validating webhook configurations`,
		`applying the example Gateway \(examples/gateway\.yaml\)`,
	}
	runStopSteps = []string{
		`interrupted; stopping the webhook, kube-apiserver and etcd`,
		`stopped`,
	}
)

const (
	runReadyLine = "ListenerSet webhook running against a local kube-apiserver."
	runLastLine  = "Ctrl-C stops the webhook, kube-apiserver and etcd."
)

// TestRunInterrupted runs hack/run's binary as a terminal would (a process
// group of its own), waits until it is ready, sends SIGINT to the group, as
// Ctrl-C does, and checks that it exits 0 having printed only its progress
// lines and instructions, and that it removed the kubeconfig.
func TestRunInterrupted(t *testing.T) {
	root := runPrerequisites(t)
	bin := filepath.Join(t.TempDir(), "run")
	if err := testproc.Build(t.Context(), bin, ModulePath+"/hack/run"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := startRun(t, bin, root, "-dir", dir)
	waitForOutput(t, run.out, run.done, runLastLine, 5*time.Minute)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if _, err := os.Stat(kubeconfig); err != nil {
		t.Errorf("hack/run is ready but its kubeconfig is not: %v", err)
	}
	run.interrupt(t)
	checkRunOutput(t, run.out.String(), nil, filepath.Join(dir, "run.log"))
	checkRunLog(t, filepath.Join(dir, "run.log"))
	if _, err := os.Stat(kubeconfig); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("kubeconfig left behind after exit: %v", err)
	}
}

// checkRunLog checks that the log file holds what the terminal must not:
// envtest's lines and the webhook's answer to the registration probe.
func checkRunLog(t *testing.T, path string) {
	t.Helper()
	log, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"controller-runtime.test-env", `"name":"webhook-probe"`} {
		if !bytes.Contains(log, []byte(want)) {
			t.Errorf("%s lacks %q:\n%s", path, want, log)
		}
	}
}

// runPrerequisites skips in -short mode and builds or finds the k8s
// binaries, so that hack/run's start is not a cold build.
func runPrerequisites(t *testing.T) (root string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts kube-apiserver and etcd; skipped with -short")
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureBinaries(context.Background(), root, nil); err != nil {
		t.Fatal(err)
	}
	return root
}

// running is hack/run's binary started by startRun.
type running struct {
	out   *syncBuffer
	done  chan error // its exit
	group int        // its process group, negated for syscall.Kill
}

// startRun starts hack/run's binary bin in root with args as a terminal
// would: in a process group of its own, stdin not a terminal (so hack/run
// stays in that group). The group is killed after a failure; it is gone
// otherwise.
func startRun(t *testing.T, bin, root string, args ...string) *running {
	t.Helper()
	out := &syncBuffer{}
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &running{out: out, done: make(chan error, 1), group: -cmd.Process.Pid}
	go func() { r.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(r.group, syscall.SIGKILL) })
	return r
}

// interrupt sends SIGINT to the group, as Ctrl-C does, and wants hack/run
// to exit 0 within 2 minutes.
func (r *running) interrupt(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(r.group, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("after SIGINT: %v, want exit status 0\n--- output:\n%s", err, r.out.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("still running 2m after SIGINT\n--- output:\n%s", r.out.String())
	}
}

func waitForOutput(t *testing.T, out *syncBuffer, done <-chan error, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for !strings.Contains(out.String(), want) {
		select {
		case err := <-done:
			t.Fatalf("exited (%v) before printing %q\n--- output:\n%s", err, want, out.String())
		case <-deadline:
			t.Fatalf("no %q within %s\n--- output:\n%s", want, timeout, out.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// checkRunOutput checks hack/run's whole output: the progress lines before
// runStartSteps (e.g. make's), the start steps, the instructions, the stop
// steps, and not one line more. Blank lines and the ^C a terminal echoes do
// not count. The webhook's step must name logPath as its log.
func checkRunOutput(t *testing.T, output string, before []string, logPath string) {
	t.Helper()
	checkRunOutputOf(t, output, runExpectation{start: runStartSteps, ready: runReadyLine, last: runLastLine, stop: runStopSteps}, before, logPath)
}

// runExpectation is what one mode of hack/run prints (checkRunOutputOf).
type runExpectation struct {
	start, stop []string
	ready, last string
}

// checkRunOutputOf is checkRunOutput for the expectation e.
func checkRunOutputOf(t *testing.T, output string, e runExpectation, before []string, logPath string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(output, "\r", ""), "\n") {
		if l = strings.TrimPrefix(l, "^C"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s\n--- output:\n%s", fmt.Sprintf(format, args...), output)
	}
	shown := logPath // as hack/run shows paths under the home directory
	if home, err := os.UserHomeDir(); err == nil {
		if rest, ok := strings.CutPrefix(logPath, home+string(filepath.Separator)); ok {
			shown = "~/" + rest
		}
	}
	start := append(append([]string{}, before...), e.start...)
	var i int
	expect := func(steps []string) bool {
		t.Helper()
		for _, step := range steps {
			if i >= len(lines) {
				fail("output ends before the step %q", step)
				return false
			}
			m := runProgress.FindStringSubmatch(lines[i])
			re := regexp.MustCompile(`^` + step + `$`)
			if m == nil || !re.MatchString(m[1]) {
				fail("line %d: %q, want the progress line %q", i+1, lines[i], step)
				return false
			}
			if sub := re.FindStringSubmatch(m[1]); re.SubexpIndex("log") >= 0 && sub[re.SubexpIndex("log")] != shown {
				fail("line %d: the log is %q, want %q", i+1, sub[re.SubexpIndex("log")], shown)
			}
			i++
		}
		return true
	}
	if !expect(start) {
		return
	}
	if i >= len(lines) || lines[i] != e.ready {
		fail("after the start steps: no %q", e.ready)
		return
	}
	end := i
	for end < len(lines) && lines[end] != e.last {
		if runProgress.MatchString(lines[end]) {
			fail("a progress line among the instructions: %q", lines[end])
			return
		}
		end++
	}
	if end == len(lines) {
		fail("no %q after the instructions", e.last)
		return
	}
	i = end + 1
	if !expect(e.stop) {
		return
	}
	if i != len(lines) {
		fail("%d lines after the last step, first %q", len(lines)-i, lines[i])
	}
}

// syncBuffer is a bytes.Buffer that a process writes to while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
