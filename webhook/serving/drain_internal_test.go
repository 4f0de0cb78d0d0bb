package serving

import (
	"context"
	"crypto/tls"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Once shutdown has begun, every response ends its keep-alive connection, so
// that no connection of kube-apiserver's is idle when Shutdown closes them
// (closeWhileDraining says why). Before, connections stay alive.
func TestResponsesCloseTheConnectionWhileDraining(t *testing.T) {
	ws := newTestServer(t, selfSignedCert(t))
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
