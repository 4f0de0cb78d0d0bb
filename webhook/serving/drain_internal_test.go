package serving

import (
	"context"
	"crypto/tls"
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

// Once shutdown has begun, every response ends its keep-alive connection, so
// that no connection of kube-apiserver's is idle when Shutdown closes them
// (closeWhileDraining says why). Before, connections stay alive.
func TestResponsesCloseTheConnectionWhileDraining(t *testing.T) {
	dir := t.TempDir()
	_, err := certs.EnsureSelfSignedCert(dir, "127.0.0.1")
	require.NoError(t, err)
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, certs.CertFile), filepath.Join(dir, certs.KeyFile))
	require.NoError(t, err)
	getCert := func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }

	tcpLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ws := &webhookServer{
		opts: Options{ReadHeaderTimeout: time.Minute, RequestTimeout: time.Minute, ShutdownDelay: time.Minute, ShutdownTimeout: time.Minute},
		ln:   tls.NewListener(tcpLn, tlsConfig(tls.VersionTLS12, false, getCert)),
		addr: tcpLn.Addr().String(),
		log:  logr.Discard(),
	}
	stop, stopNow := context.WithCancel(t.Context())
	defer stopNow()
	abort, abortNow := context.WithCancel(t.Context())
	defer abortNow()
	go func() {
		_ = ws.serve(stop, abort, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusOK)
		}))
	}()
	require.Eventually(t, func() bool { return ws.ready(nil) == nil }, 5*time.Second, 10*time.Millisecond)

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	post := func() *http.Response {
		resp, err := client.Post("https://"+ws.addr+"/", "application/json", nil)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	assert.False(t, post().Close, "serving: the connection is kept alive")

	stopNow()
	require.Eventually(t, ws.draining.Load, 5*time.Second, 10*time.Millisecond)
	resp := post()
	assert.True(t, resp.Close, "draining: the response closes the connection")
}
