package webhook

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// controller-runtime's http.Server has no ReadTimeout, so a request body
// could trickle in forever; withDeadline cuts it off.
func TestWithDeadlineCutsOffSlowBodies(t *testing.T) {
	readErr := make(chan error, 1)
	srv := httptest.NewServer(withDeadline(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
	}), 200*time.Millisecond))
	defer srv.Close()

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	// Headers promise 100 bytes; one arrives, the rest never does.
	_, err = fmt.Fprint(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	require.NoError(t, err)

	select {
	case err := <-readErr:
		assert.ErrorContains(t, err, "timeout")
	case <-time.After(5 * time.Second):
		t.Fatal("a stalled body was not cut off")
	}
}

// The deadlines are per request: net/http clears them before reading the
// next request on a kept-alive connection, so a connection that outlives one
// deadline still serves.
func TestWithDeadlineIsPerRequest(t *testing.T) {
	srv := httptest.NewServer(withDeadline(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	}), 100*time.Millisecond))
	defer srv.Close()
	client := srv.Client()

	var reused []bool
	for range 2 {
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace),
			http.MethodPost, srv.URL, strings.NewReader("{}"))
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, "ok", string(body))
		time.Sleep(300 * time.Millisecond) // past the first request's deadlines
	}
	assert.Equal(t, []bool{false, true}, reused, "the second request used the same connection")
}
