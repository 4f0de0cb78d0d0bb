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
	"syscall"
	"time"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// server is a webhook server process the tool started: ours
// (`listenerset-webhook serve`) or the floor, with the same flags.
type server struct {
	name        string
	cmd         *exec.Cmd
	port        int
	metricsAddr string
	done        chan error
}

// startServer starts binary (with args before the common flags, e.g.
// "serve") on 127.0.0.1 with the certificate in certDir, its logs in
// logPath, and waits until /readyz answers.
func startServer(ctx context.Context, name, binary string, args []string, certDir, logPath string) (*server, error) {
	ports := make([]int, 3)
	for i := range ports {
		p, err := localcluster.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	health := fmt.Sprintf("127.0.0.1:%d", ports[1])
	s := &server{name: name, port: ports[0], metricsAddr: fmt.Sprintf("127.0.0.1:%d", ports[2]), done: make(chan error, 1)}
	args = append(append([]string{}, args...),
		"--host=127.0.0.1", fmt.Sprintf("--port=%d", s.port), "--cert-dir="+certDir,
		"--health-probe-bind-address="+health, "--metrics-bind-address="+s.metricsAddr)
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	s.cmd = exec.Command(binary, args...)
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	go func() { s.done <- s.cmd.Wait(); logFile.Close() }()

	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + health + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("%s exited before it was ready (%v); log: %s", name, err, logPath)
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("%s not ready after 30s; log: %s", name, logPath)
		}
	}
}

func (s *server) baseURL() string { return fmt.Sprintf("https://127.0.0.1:%d", s.port) }

// stop sends SIGTERM and waits; after 10s it kills.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// memory reads the process's resident set size now (VmRSS) and its peak
// (VmHWM) from /proc, in bytes.
func (s *server) memory() (rss, peak int64, err error) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "status"))
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
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "stat"))
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
// handlers have answered (controller-runtime's
// controller_runtime_webhook_requests_total), from its /metrics.
func (s *server) calls() (mutate, validate float64, err error) {
	resp, err := http.Get("http://" + s.metricsAddr + "/metrics")
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
		case strings.Contains(line, `webhook="`+admission.ValidatePath+`"`):
			validate += v
		}
	}
	return mutate, validate, sc.Err()
}
