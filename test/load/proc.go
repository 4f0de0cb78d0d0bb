package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// server is a webhook server process the tool started: ours
// (`listenerset-webhook serve`) or the floor, with the same flags.
type server struct {
	name  string
	proc  *testproc.Process
	ports testproc.Ports
}

// startServer starts binary (with args before the common flags, e.g.
// "serve") on 127.0.0.1 with the certificate in certDir, its logs in
// logPath, and waits until /readyz answers.
func startServer(ctx context.Context, name, binary string, args []string, certDir, logPath string) (*server, error) {
	s, err := launchServer(name, binary, args, certDir, logPath)
	if err != nil {
		return nil, err
	}
	if err := testproc.WaitReady(ctx, s.ports.ReadyzURL(), 30*time.Second, s.proc.Ended); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s: %w; log: %s", name, err, logPath)
	}
	return s, nil
}

// launchServer starts binary as startServer does, without waiting for it.
func launchServer(name, binary string, args []string, certDir, logPath string) (*server, error) {
	ports, err := testproc.NewPorts()
	if err != nil {
		return nil, err
	}
	s := &server{name: name, ports: ports}
	args = append(append(append([]string{}, args...), "--host=127.0.0.1", "--cert-dir="+certDir), ports.Flags()...)
	if s.proc, err = testproc.Start(exec.Command(binary, args...), logPath); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *server) baseURL() string { return "https://" + s.ports.Addr() }

// stop sends SIGTERM and waits; after 10s it kills.
func (s *server) stop() { _ = s.proc.Stop(10 * time.Second) }

// memory reads the process's resident set size now (VmRSS) and its peak
// (VmHWM) from /proc, in bytes.
func (s *server) memory() (rss, peak int64, err error) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(s.proc.Pid()), "status"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc status %s: %w", key, err)
		}
		if key == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	if rss == 0 || peak == 0 {
		return 0, 0, errors.New("no VmRSS/VmHWM in /proc status")
	}
	return rss, peak, sc.Err()
}

// cpu is the CPU time the process has used so far (user and system), from
// /proc/<pid>/stat in clock ticks of 10ms.
func (s *server) cpu() (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.proc.Pid()), "stat"))
	if err != nil {
		return 0, err
	}
	// The fields after the command name (which is in parentheses) start
	// with the state (field 3); utime and stime are fields 14 and 15.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// calls returns how many requests the server's mutating and validating
// handlers (the ListenerSets' and the HTTPRoutes') have answered (controller-runtime's
// controller_runtime_webhook_requests_total), from its /metrics.
func (s *server) calls() (mutate, validate float64, err error) {
	resp, err := http.Get("http://" + s.ports.MetricsAddr() + "/metrics")
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "controller_runtime_webhook_requests_total{") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return 0, 0, err
		}
		switch {
		case strings.Contains(line, `webhook="`+admission.MutatePath+`"`):
			mutate += v
		case strings.Contains(line, `webhook="`+admission.ValidatePath+`"`), strings.Contains(line, `webhook="`+admission.ValidateRoutePath+`"`):
			validate += v
		}
	}
	return mutate, validate, sc.Err()
}
