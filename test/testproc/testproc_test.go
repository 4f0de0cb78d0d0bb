package testproc_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/test/testproc"
)

func TestPorts(t *testing.T) {
	p, err := testproc.NewPorts()
	require.NoError(t, err)
	assert.Len(t, map[int]bool{p.Webhook: true, p.Health: true, p.Metrics: true}, 3, "three different ports")
	l, err := net.Listen("tcp", p.Addr())
	require.NoError(t, err, "free")
	l.Close()
	assert.Equal(t, []string{
		"--port=" + p.Addr()[len("127.0.0.1:"):],
		"--health-probe-bind-address=" + p.HealthAddr(),
		"--metrics-bind-address=" + p.MetricsAddr(),
	}, p.Flags())
	assert.Equal(t, "http://"+p.HealthAddr()+"/readyz", p.ReadyzURL())
}

func TestWaitReady(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	running := func() error { return nil }
	require.NoError(t, testproc.WaitReady(t.Context(), srv.URL, 10*time.Second, running))
	assert.Equal(t, int32(3), calls.Load(), "ready at the first 200")

	crashed := errors.New("crashed")
	err := testproc.WaitReady(t.Context(), srv.URL, 10*time.Second, func() error { return crashed })
	assert.ErrorIs(t, err, crashed)

	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer never.Close()
	assert.ErrorContains(t, testproc.WaitReady(t.Context(), never.URL, 200*time.Millisecond, running), "did not answer 200")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, testproc.WaitReady(ctx, never.URL, time.Minute, running), context.Canceled)
}

func TestReturned(t *testing.T) {
	done := make(chan error, 1)
	returned := testproc.Returned(done)
	assert.NoError(t, returned(), "still running")
	done <- errors.New("boom")
	assert.EqualError(t, returned(), "returned boom")
	assert.EqualError(t, <-done, "boom", "the result stays for the next reader")
	done <- nil
	assert.EqualError(t, returned(), "returned <nil>", "returning at all is an end")
}

func TestProcess(t *testing.T) {
	t.Run("exits on SIGTERM", func(t *testing.T) {
		log := filepath.Join(t.TempDir(), "log")
		p, err := testproc.Start(exec.Command("sh", "-c", "echo started; exec sleep 60"), log)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return p.Log() == "started\n" }, 10*time.Second, 10*time.Millisecond)
		assert.NoError(t, p.Ended(), "running")
		assert.Equal(t, -1, p.ExitCode())
		assert.True(t, p.ExitedAt().IsZero())
		assert.False(t, p.Wait(10*time.Millisecond))
		require.NoError(t, p.Stop(10*time.Second))
		assert.Error(t, p.Ended())
		assert.Error(t, p.ExitErr(), "ended by a signal")
		assert.False(t, p.ExitedAt().IsZero())
	})
	t.Run("exit status", func(t *testing.T) {
		p, err := testproc.Start(exec.Command("sh", "-c", "exit 3"), "")
		require.NoError(t, err)
		require.True(t, p.Wait(10*time.Second))
		assert.Equal(t, 3, p.ExitCode())
		assert.ErrorContains(t, p.Ended(), "exit status 3")
		ok, err := testproc.Start(exec.Command("true"), "")
		require.NoError(t, err)
		require.True(t, ok.Wait(10*time.Second))
		assert.NoError(t, ok.ExitErr())
		assert.EqualError(t, ok.Ended(), "exit status 0", "any exit is an end")
	})
	t.Run("killed when it ignores SIGTERM", func(t *testing.T) {
		p, err := testproc.Start(exec.Command("sh", "-c", `trap "" TERM; echo trapped; exec sleep 60`), filepath.Join(t.TempDir(), "log"))
		require.NoError(t, err)
		require.Eventually(t, func() bool { return p.Log() == "trapped\n" }, 10*time.Second, 10*time.Millisecond)
		began := time.Now()
		assert.ErrorContains(t, p.Stop(300*time.Millisecond), "ignored SIGTERM")
		assert.Less(t, time.Since(began), 5*time.Second)
		assert.Error(t, p.Ended())
	})
}
