package reliability

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// Helpers of shutdown_test.go, rotation_test.go and hostile_test.go: the
// binary as a process, and a load of real AdmissionReviews.

func TestMain(m *testing.M) {
	code := m.Run()
	testproc.RemoveBinaries()
	os.Exit(code)
}

// webhookBinary is cmd/listenerset-webhook, built once for the package.
func webhookBinary(t *testing.T) string {
	t.Helper()
	bin, err := testproc.WebhookBinary()
	require.NoError(t, err)
	return bin
}

// loopbackHosts name the serving certificates the tests issue; the clients
// verify 127.0.0.1.
var loopbackHosts = []string{"127.0.0.1", "localhost"}

// webhookProc is one `listenerset-webhook serve` process on loopback.
type webhookProc struct {
	*testproc.Process
	name  string
	ports testproc.Ports
	addr  string // host:port of the webhooks
}

// startWebhookProc starts the binary with certDir and args, and waits until
// /readyz answers 200. At the end of the test a process still running gets
// SIGTERM, and any exit but 0 fails the test (a request must not be able to
// crash the server); the tail of its log is shown when the test failed.
func startWebhookProc(t *testing.T, bin, name, certDir string, args ...string) *webhookProc {
	t.Helper()
	ports, err := testproc.NewPorts()
	require.NoError(t, err)
	flags := append(append(append([]string{"serve"}, testproc.ServeFlags()...), "--host=127.0.0.1", "--cert-dir="+certDir), ports.Flags()...)
	proc, err := testproc.Start(exec.Command(bin, append(flags, args...)...), filepath.Join(t.TempDir(), name+".log"))
	require.NoError(t, err)
	p := &webhookProc{Process: proc, name: name, ports: ports, addr: ports.Addr()}
	t.Cleanup(func() {
		// controller-runtime drains for up to a minute.
		if err := p.Stop(70 * time.Second); err != nil {
			t.Error(err)
		} else if err := p.ExitErr(); err != nil {
			t.Errorf("%s exited with %v", name, err)
		}
		if t.Failed() {
			t.Logf("log of %s:\n%s", name, p.logTail())
		}
	})
	if err := testproc.WaitReady(t.Context(), ports.ReadyzURL(), 30*time.Second, p.Ended); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, p.logTail())
	}
	return p
}

// ready polls /readyz once, as a kubelet's readiness probe would.
func (p *webhookProc) ready(timeout time.Duration) bool {
	return testproc.Ready(p.ports.ReadyzURL(), timeout)
}

// logTail is the end of the process's log, for failure messages.
func (p *webhookProc) logTail() string {
	log := p.Log()
	if len(log) > 8<<10 {
		log = log[len(log)-8<<10:]
	}
	return log
}

// review is one AdmissionReview of the load, with the answer it must get.
type review struct {
	name    string
	path    string
	uid     string
	body    []byte
	allowed bool
}

// reviewMix is what kube-apiserver sends for ListenerSet writes, to both
// webhooks: valid objects, undefaulted ones (the mutating webhook patches
// them) and invalid ones (the validating webhook denies them).
func reviewMix() []review {
	objs := []struct {
		name  string
		ls    *gwv1.ListenerSet
		valid bool
	}{
		{"two-listeners", fixtures.Defaulted(fixtures.TwoListeners()), true},
		{"reference-example", fixtures.Defaulted(fixtures.ReferenceExample()), true},
		{"undefaulted", fixtures.TwoListeners(), true},
		{"bad-cipher", fixtures.Defaulted(fixtures.BadCipher()), false},
		{"many-errors", fixtures.Defaulted(fixtures.ManyErrors()), false},
	}
	var out []review
	for i, o := range objs {
		uid := fmt.Sprintf("00000000-0000-0000-0000-%012d", i)
		body := fixtures.Review(uid, admissionv1.Create, o.ls, nil)
		out = append(out,
			review{name: "mutate " + o.name, path: admission.MutatePath, uid: uid, body: body, allowed: true},
			review{name: "validate " + o.name, path: admission.ValidatePath, uid: uid, body: body, allowed: o.valid})
	}
	return out
}

// send posts rv to addr with body (rv.body when nil) and checks the answer:
// HTTP 200, an AdmissionReview for rv's UID with rv's verdict. It returns
// the serial of the certificate the server presented.
func send(c *http.Client, addr string, rv review, body io.Reader) (string, error) {
	if body == nil {
		body = bytes.NewReader(rv.body)
	}
	req, err := http.NewRequest(http.MethodPost, "https://"+addr+rv.path, body)
	if err != nil {
		return "", err
	}
	req.ContentLength = int64(len(rv.body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("%s: reading the answer: %w", rv.name, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: status %d: %.200s", rv.name, resp.StatusCode, data)
	}
	var answer admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &answer); err != nil {
		return "", fmt.Errorf("%s: %w", rv.name, err)
	}
	if answer.Response == nil || string(answer.Response.UID) != rv.uid || answer.Response.Allowed != rv.allowed {
		return "", fmt.Errorf("%s: unexpected answer %.300s", rv.name, data)
	}
	return resp.TLS.PeerCertificates[0].SerialNumber.String(), nil
}

// tlsClient verifies the webhook against pool, as kube-apiserver does with
// the caBundle; keepAlive as kube-apiserver (true) or a new handshake per
// request (false).
func tlsClient(pool *x509.CertPool, keepAlive bool) *http.Client {
	return &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12},
		DisableKeepAlives:   !keepAlive,
		MaxIdleConnsPerHost: 4,
	}}
}

// slowReader hands out its data in chunks spread over d, like a client on a
// slow link.
type slowReader struct {
	data   []byte
	chunk  int
	pause  time.Duration
	offset int
	// read is how much of data the sender has taken so far.
	read atomic.Int64
}

// midway tells whether the sender has taken part of the body, not all of
// it: the request is on the wire, its body still arriving.
func (s *slowReader) midway() bool {
	n := s.read.Load()
	return n > 0 && n < int64(len(s.data))
}

func newSlowReader(data []byte, d time.Duration, chunks int) *slowReader {
	return &slowReader{data: data, chunk: (len(data) + chunks - 1) / chunks, pause: d / time.Duration(chunks)}
}

// Read implements io.Reader.
func (s *slowReader) Read(p []byte) (int, error) {
	if s.offset >= len(s.data) {
		return 0, io.EOF
	}
	if s.offset > 0 {
		time.Sleep(s.pause)
	}
	n := copy(p[:min(len(p), s.chunk)], s.data[s.offset:])
	s.offset += n
	s.read.Store(int64(s.offset))
	return n, nil
}

// tally counts the load's requests and keeps the first failures.
type tally struct {
	total, failed atomic.Int64
	mu            sync.Mutex
	failures      []string
}

func (tl *tally) record(err error) {
	tl.total.Add(1)
	if err == nil {
		return
	}
	tl.failed.Add(1)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if len(tl.failures) < 20 {
		tl.failures = append(tl.failures, err.Error())
	}
}

func (tl *tally) String() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return strings.Join(tl.failures, "\n")
}

// isRefused says a dial failed because nothing listens any more.
func isRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}

// waitUntil polls cond every 10ms until it holds, and fails the test when
// it has not within timeout: a wait for what a test needs to have happened,
// not for a time that usually suffices.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
