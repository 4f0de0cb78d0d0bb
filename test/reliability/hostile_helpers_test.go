package reliability

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// hostileServer is cmd/listenerset-webhook running as its own process, so
// that its /metrics (goroutines, heap, RSS) measure the server alone and not
// the test's clients.
type hostileServer struct {
	*webhookProc
	tlsConfig *tls.Config
}

// hostileStart runs `serve` with a fresh --cert-dir (the server self-signs
// and writes ca.crt there) and waits until /readyz answers 200; the process
// must exit 0 on SIGTERM when the test ends (startWebhookProc).
func hostileStart(t *testing.T, bin string, extra ...string) *hostileServer {
	t.Helper()
	certDir := filepath.Join(t.TempDir(), "certs")
	p := startWebhookProc(t, bin, "hostile", certDir, extra...)
	caPEM, err := os.ReadFile(filepath.Join(certDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("ca.crt holds no certificate")
	}
	return &hostileServer{webhookProc: p, tlsConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}}
}

// client returns an HTTPS client of its own, so that its connections are
// new; keepAlive false makes every request open a new connection.
func (s *hostileServer) client(keepAlive bool) *http.Client {
	return &http.Client{
		Timeout: 60 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:     s.tlsConfig.Clone(),
			DisableKeepAlives:   !keepAlive,
			MaxIdleConnsPerHost: 16,
			ForceAttemptHTTP2:   false,
		},
	}
}

// metrics reads the unlabelled samples of the server's /metrics
// (go_goroutines, go_memstats_*, process_*).
func (s *hostileServer) metrics(t *testing.T) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for name, v := range s.samples(t) {
		if !strings.ContainsRune(name, '{') {
			out[name] = v
		}
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_inuse_bytes", "process_resident_memory_bytes", "go_gc_duration_seconds_count", "controller_runtime_webhook_panics_total"} {
		if _, ok := out[name]; !ok {
			t.Fatalf("metrics: no %s", name)
		}
	}
	return out
}

// samples reads every sample of the server's /metrics by its full name,
// labels included (`name{label="value"}`), over a connection of its own
// that is closed afterwards so that it does not count as an idle one.
func (s *hostileServer) samples(t *testing.T) map[string]float64 {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	metricsURL := "http://" + s.ports.MetricsAddr() + "/metrics"
	resp, err := c.Get(metricsURL)
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("metrics: %v", err)
	}
	return out
}

// hostileAnswer is what the server did with one hostile input.
type hostileAnswer struct {
	// status is the HTTP status; 0 when the connection closed without an
	// HTTP response (raw holds whatever bytes came before the close), -1
	// when the client could not even connect.
	status  int
	header  http.Header
	body    []byte
	review  *admissionv1.AdmissionReview // decoded body of a 200
	raw     []byte
	err     error // the client's error when no response came
	elapsed time.Duration
}

func (a hostileAnswer) String() string {
	if a.status <= 0 {
		return fmt.Sprintf("no HTTP response after %v (%d bytes %q before close; %v)", a.elapsed.Round(time.Millisecond), len(a.raw), hostileClip(a.raw), a.err)
	}
	if a.review != nil {
		b, _ := json.Marshal(a.review)
		return fmt.Sprintf("HTTP %d %s", a.status, hostileClip(b))
	}
	return fmt.Sprintf("HTTP %d %q", a.status, hostileClip(a.body))
}

func hostileClip(b []byte) []byte {
	if len(b) > 400 {
		return append(b[:400:400], "..."...)
	}
	return b
}

// hostileDo sends req with c and reads the whole answer.
func hostileDo(c *http.Client, req *http.Request) hostileAnswer {
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return hostileAnswer{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	a := hostileAnswer{status: resp.StatusCode, header: resp.Header, body: body, err: err, elapsed: time.Since(start)}
	if resp.StatusCode == http.StatusOK {
		var review admissionv1.AdmissionReview
		if json.Unmarshal(body, &review) == nil {
			a.review = &review
		}
	}
	return a
}

// hostileRaw writes data on conn (already dialled, TLS or not) and reads
// until a complete HTTP response has come, the server closes the
// connection, or timeout passes. It parses the HTTP response when the bytes
// are one.
func hostileRaw(conn net.Conn, data []byte, timeout time.Duration) hostileAnswer {
	start := time.Now()
	_ = conn.SetDeadline(start.Add(timeout))
	// Written while reading: a server may answer (431, 413) and close
	// before a large request is written, and the answer must not be lost
	// to the reset that writing on would cause.
	werr := make(chan error, 1)
	go func() {
		var err error
		if len(data) > 0 {
			_, err = conn.Write(data)
		}
		werr <- err
	}()
	var (
		raw  []byte
		rerr error
		buf  = make([]byte, 32<<10)
	)
	for !hostileComplete(raw) {
		var n int
		n, rerr = conn.Read(buf)
		raw = append(raw, buf[:n]...)
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				rerr = nil
			}
			break
		}
	}
	a := hostileAnswer{raw: raw, elapsed: time.Since(start), err: rerr}
	if err := <-werr; err != nil && rerr != nil {
		a.err = errors.Join(rerr, err)
	}
	return a.parsed()
}

// hostileComplete reports whether raw holds a whole HTTP response whose end
// is known without waiting for the connection to close.
func hostileComplete(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
	if err != nil || (resp.ContentLength < 0 && len(resp.TransferEncoding) == 0) {
		return false
	}
	_, err = io.ReadAll(resp.Body)
	return err == nil
}

// parsed fills in the HTTP response that a.raw holds, if it is one.
func (a hostileAnswer) parsed() hostileAnswer {
	if len(a.raw) == 0 {
		return a
	}
	if resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(a.raw)), nil); err == nil {
		body, _ := io.ReadAll(resp.Body)
		a.status, a.header, a.body = resp.StatusCode, resp.Header, body
		if resp.StatusCode == http.StatusOK {
			var review admissionv1.AdmissionReview
			if json.Unmarshal(body, &review) == nil {
				a.review = &review
			}
		}
	}
	return a
}

// openConnections counts the server's side of the connections to its
// webhook and metrics ports that the server has not closed yet
// (/proc/net/tcp and tcp6: ESTABLISHED, or CLOSE_WAIT once the client closed
// its side). The server closes a connection as the goroutine serving it
// returns.
func (s *hostileServer) openConnections(t *testing.T) int {
	t.Helper()
	var locals []string
	for _, addr := range []string{s.addr, s.ports.MetricsAddr()} {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			t.Fatal(err)
		}
		locals = append(locals, fmt.Sprintf(":%04X", p))
	}
	n := 0
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", s.Pid(), table))
		if err != nil {
			t.Skipf("no /proc: %v", err)
		}
		for line := range strings.Lines(string(b)) {
			f := strings.Fields(line)
			if len(f) > 3 && (f[3] == "01" || f[3] == "08") &&
				(strings.HasSuffix(f[1], locals[0]) || strings.HasSuffix(f[1], locals[1])) {
				n++
			}
		}
	}
	return n
}

// awaitConnectionsClosed waits until the server has closed every
// connection (openConnections is 0), and fails when it has not within
// timeout: the goroutines of connections the clients closed would still
// count.
func (s *hostileServer) awaitConnectionsClosed(t *testing.T, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		n := s.openConnections(t)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server still holds %d connections %v after its clients closed theirs", n, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
