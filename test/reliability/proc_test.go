package reliability

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
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
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// Helpers of shutdown_test.go and rotation_test.go: the binary as a
// process, certificates, and a load of real AdmissionReviews. buildWebhook
// and loopbackPort serve hostile_test.go too.

// buildWebhook builds cmd/listenerset-webhook into a temporary directory.
func buildWebhook(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "listenerset-webhook")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin,
		"github.com/airlock/listenerset-webhook/cmd/listenerset-webhook").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// loopbackPort is a port free right now on 127.0.0.1.
func loopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// webhookProc is one `listenerset-webhook serve` process on loopback.
type webhookProc struct {
	name    string
	addr    string // host:port of the webhooks
	health  string // http://host:port of /healthz and /readyz
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed when it has exited
	exitErr error         // of cmd.Wait, once done
	exitAt  time.Time
}

// startWebhookProc starts the binary with certDir and args, and waits until
// /readyz answers 200. It is killed at the end of the test if still running.
func startWebhookProc(t *testing.T, bin, name, certDir string, args ...string) *webhookProc {
	t.Helper()
	port, health := loopbackPort(t), loopbackPort(t)
	p := &webhookProc{
		name:    name,
		addr:    fmt.Sprintf("127.0.0.1:%d", port),
		health:  fmt.Sprintf("http://127.0.0.1:%d", health),
		logPath: filepath.Join(t.TempDir(), name+".log"),
		done:    make(chan struct{}),
	}
	logFile, err := os.Create(p.logPath)
	require.NoError(t, err)
	p.cmd = exec.Command(bin, append([]string{"serve",
		"--host=127.0.0.1",
		fmt.Sprintf("--port=%d", port),
		"--cert-dir=" + certDir,
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", health),
		"--metrics-bind-address=0",
	}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	require.NoError(t, p.cmd.Start())
	go func() {
		p.exitErr = p.cmd.Wait()
		p.exitAt = time.Now()
		logFile.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("log of %s:\n%s", name, p.log())
		}
	})

	deadline := time.Now().Add(30 * time.Second)
	for !p.ready(time.Second) {
		select {
		case <-p.done:
			t.Fatalf("%s exited at start (%v):\n%s", name, p.exitErr, p.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: /readyz never answered 200:\n%s", name, p.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return p
}

// ready polls /readyz once, as a kubelet's readiness probe would.
func (p *webhookProc) ready(timeout time.Duration) bool {
	c := http.Client{Timeout: timeout}
	resp, err := c.Get(p.health + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// signal sends sig to the process.
func (p *webhookProc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(sig))
}

// wait waits up to timeout for the process to exit and returns its exit
// code (-1 when it did not exit in time).
func (p *webhookProc) wait(timeout time.Duration) int {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		return -1
	}
}

func (p *webhookProc) log() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

// testCA issues serving certificates for 127.0.0.1.
type testCA struct {
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	pem    []byte
	serial atomic.Int64
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "reliability-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	ca := &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
	ca.serial.Store(1)
	return ca
}

// pool holds the CA: what kube-apiserver has in the caBundle.
func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// issue returns a new serving certificate and key (PEM) and its serial.
func (ca *testCA) issue(t *testing.T) (certPEM, keyPEM []byte, serial string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	sn := big.NewInt(ca.serial.Add(1))
	tmpl := &x509.Certificate{
		SerialNumber: sn, Subject: pkix.Name{CommonName: "listenerset-webhook"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), sn.String()
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
