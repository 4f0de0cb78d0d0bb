package serving

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kube-apiserver keeps its connections to a webhook alive and may send on one
// until it has been idle for kubeAPIServerKeepAlive; its request reaches the
// server a moment later. Whenever the server closes such a connection first,
// the request kube-apiserver is writing at that moment is lost: it gets EOF,
// and a POST is not retried (the node suite's `Post "https://…": EOF`). These
// tests take kube-apiserver's part with a raw TLS connection, so that they,
// not a transport's timers, decide when an idle connection is used again.

// The server's idle timeout must outlast kube-apiserver's keep-alive: a
// request sent at the last moment kube-apiserver may reuse the connection is
// answered. The timeouts are scaled down 30 times (3 s for 90 s); the request
// is sent when the client's keep-alive, counted from when it read the answer
// (the server's idle time is already longer), has just run out, plus a
// transit of a tenth of it.
func TestIdleConnectionOutlivesKubeAPIServerKeepAlive(t *testing.T) {
	t.Parallel()
	const scale = 30
	keepAlive := kubeAPIServerKeepAlive / scale
	ws := newTestServer(t, selfSignedCert(t))
	ws.idleTimeout = idleTimeout / scale
	serveOK(t, ws, t.Context())

	c := dialRaw(t, ws.addr)
	resp, err := c.post()
	require.NoError(t, err)
	require.False(t, resp.Close, "kept alive")
	// The idle time is what is tested, not a wait for something to happen:
	// the connection must still serve after kube-apiserver's keep-alive.
	time.Sleep(keepAlive + keepAlive/10)
	resp, err = c.post()
	require.NoError(t, err, "a request on a connection idle for the client's whole keep-alive")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// Once the shutdown delay is over and the listener closed, the connections
// kube-apiserver keeps stay open until they end by themselves: used once more
// (the answer closes it), closed by the client (kube-apiserver's keep-alive),
// or at ShutdownTimeout. Closing them at once, as http.Server.Shutdown does
// with idle ones, races kube-apiserver's next request on them: through
// conntrack it still reaches this pod after the pod has left the endpoints.
func TestDrainKeepsIdleConnectionsOpen(t *testing.T) {
	t.Parallel()
	getCert := selfSignedCert(t)
	t.Run("used after the delay", func(t *testing.T) {
		t.Parallel()
		ws, returned, c := drainingWithAnIdleConnection(t, getCert, time.Minute)
		resp, err := c.post()
		require.NoError(t, err, "a request on a connection idle since before the shutdown")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.True(t, resp.Close, "the answer closes the connection")
		assertReturnsWithin(t, returned, 5*time.Second, "the drain ends with the last connection")
		assert.True(t, ws.draining.Load())
	})
	t.Run("closed by the client", func(t *testing.T) {
		t.Parallel()
		_, returned, c := drainingWithAnIdleConnection(t, getCert, time.Minute)
		select {
		case <-returned:
			t.Fatal("the drain ended with a connection still open")
		case <-time.After(500 * time.Millisecond):
		}
		require.NoError(t, c.conn.Close())
		assertReturnsWithin(t, returned, 5*time.Second, "the drain ends with the last connection")
	})
	t.Run("still idle at ShutdownTimeout", func(t *testing.T) {
		t.Parallel()
		_, returned, c := drainingWithAnIdleConnection(t, getCert, time.Second)
		assertReturnsWithin(t, returned, 5*time.Second, "the drain ends at ShutdownTimeout")
		require.NoError(t, c.conn.SetReadDeadline(time.Now().Add(5*time.Second)))
		_, err := c.br.ReadByte()
		assert.ErrorIs(t, err, io.EOF, "the connection was closed")
	})
}

// drainingWithAnIdleConnection starts a server with a shutdown delay of
// 200ms and the given ShutdownTimeout, opens a connection and sends one
// request on it, stops the server and returns once the delay is over (the
// listener refuses connections) and the drain waits for the connections
// kept alive to end, with the connection idle since before the stop.
func drainingWithAnIdleConnection(t *testing.T, getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error),
	shutdownTimeout time.Duration) (*webhookServer, <-chan error, *rawConn) {
	t.Helper()
	ws := newTestServer(t, getCert)
	ws.opts.ShutdownDelay = 200 * time.Millisecond
	ws.opts.ShutdownTimeout = shutdownTimeout
	stop, stopNow := context.WithCancel(t.Context())
	t.Cleanup(stopNow)
	returned := serveOK(t, ws, stop)

	c := dialRaw(t, ws.addr)
	resp, err := c.post()
	require.NoError(t, err)
	require.False(t, resp.Close, "kept alive")
	stopNow()
	require.Eventually(t, func() bool {
		conn, err := tls.Dial("tcp", ws.addr, &tls.Config{InsecureSkipVerify: true})
		if err == nil {
			conn.Close()
		}
		return err != nil
	}, 5*time.Second, 10*time.Millisecond, "the listener closes after the delay")
	require.Eventually(t, ws.conns.waiting, 5*time.Second, 10*time.Millisecond,
		"the drain waits for the connection kept alive to end (it never got there, or closed the connection at once)")
	return ws, returned, c
}

// waiting: the drain waits on allClosed for connections still open.
func (c *connTracker) waiting() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.none != nil
}

// serveOK runs ws.serve with a handler answering 200 until stop and waits
// until it is ready; the channel gets what serve returned. The test's end
// aborts it.
func serveOK(t *testing.T, ws *webhookServer, stop context.Context) <-chan error {
	t.Helper()
	abort, abortNow := context.WithCancel(context.Background())
	returned := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		returned <- ws.serve(stop, abort, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			_, _ = io.WriteString(w, "ok")
		}))
	}()
	t.Cleanup(func() {
		abortNow()
		<-done
	})
	require.Eventually(t, func() bool { return ws.ready(nil) == nil }, 5*time.Second, 10*time.Millisecond)
	return returned
}

func assertReturnsWithin(t *testing.T, returned <-chan error, d time.Duration, msg string) {
	t.Helper()
	select {
	case err := <-returned:
		assert.NoError(t, err)
	case <-time.After(d):
		t.Fatal(msg)
	}
}

// rawConn is a keep-alive client connection whose requests are sent when
// the test says, on that one connection.
type rawConn struct {
	addr string
	conn *tls.Conn
	br   *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return &rawConn{addr: addr, conn: conn, br: bufio.NewReader(conn)}
}

// post sends one POST on the connection and reads its answer.
func (c *rawConn) post() (*http.Response, error) {
	if err := c.conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, "https://"+c.addr+"/", strings.NewReader(`{}`))
	if err != nil {
		return nil, err
	}
	if err := req.Write(c.conn); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(c.br, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp, err
}
