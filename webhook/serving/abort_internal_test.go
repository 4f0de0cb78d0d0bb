package serving

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/webhook/certs"
)

// When another component fails (abort), the webhook server stops at once,
// in whatever phase it is, closing requests in flight rather than draining
// them: the process is failing, and the shutdown delay and drain are for
// an orderly stop only.
func TestWebhookServerAbort(t *testing.T) {
	getCert := selfSignedCert(t)
	for _, phase := range []string{"serving", "shutdown delay"} {
		t.Run(phase, func(t *testing.T) {
			ws := newTestServer(t, getCert)
			stop, stopNow := context.WithCancel(t.Context())
			defer stopNow()
			abort, abortNow := context.WithCancel(t.Context())
			defer abortNow()
			returned := make(chan error, 1)
			inFlight := make(chan struct{})
			go func() {
				returned <- ws.serve(stop, abort, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
					close(inFlight)
					_, _ = io.ReadAll(r.Body) // never ends: the body never arrives
				}))
			}()
			require.Eventually(t, func() bool { return ws.ready(nil) == nil }, 5*time.Second, 10*time.Millisecond)

			conn, err := tls.Dial("tcp", ws.addr, &tls.Config{InsecureSkipVerify: true})
			require.NoError(t, err)
			defer conn.Close()
			_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{")
			require.NoError(t, err)
			select {
			case <-inFlight:
			case <-time.After(5 * time.Second):
				t.Fatal("the request never reached the handler")
			}
			if phase == "shutdown delay" {
				stopNow()
				require.Eventually(t, ws.draining.Load, 5*time.Second, 10*time.Millisecond)
			}

			abortNow()
			select {
			case err := <-returned:
				assert.NoError(t, err, "the failing component reports the error, not the server")
			case <-time.After(5 * time.Second):
				t.Fatal("the server did not stop at once")
			}
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
			_, err = io.ReadAll(conn)
			var netErr net.Error
			assert.False(t, errors.As(err, &netErr) && netErr.Timeout(), "the request in flight was closed: %v", err)
			assert.True(t, ws.draining.Load(), "not ready any more")
		})
	}
}

// selfSignedCert is a GetCertificate for 127.0.0.1.
func selfSignedCert(t *testing.T) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	t.Helper()
	dir := t.TempDir()
	_, err := certs.EnsureSelfSignedCert(dir, "127.0.0.1")
	require.NoError(t, err)
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, certs.CertFile), filepath.Join(dir, certs.KeyFile))
	require.NoError(t, err)
	return func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }
}

// newTestServer is a webhook server on a loopback port whose phases each
// last a minute, so that a test decides when they end.
func newTestServer(t *testing.T, getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error)) *webhookServer {
	t.Helper()
	tcpLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return &webhookServer{
		opts: Options{ReadHeaderTimeout: time.Minute, RequestTimeout: time.Minute, ShutdownDelay: time.Minute, ShutdownTimeout: time.Minute},
		ln:   tls.NewListener(tcpLn, tlsConfig(tls.VersionTLS12, false, getCert)),
		addr: tcpLn.Addr().String(),
		log:  logr.Discard(),

		idleTimeout: idleTimeout,
	}
}
