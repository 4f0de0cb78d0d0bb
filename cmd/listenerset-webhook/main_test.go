package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/version"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testproc.RemoveBinaries()
	os.Exit(code)
}

// TestUsage: each command line's exit code and what it prints (the server
// writes only to stderr).
func TestUsage(t *testing.T) {
	usage := "Usage: listenerset-webhook [serve] [flags]"
	tests := []struct {
		name   string
		args   []string
		exit   int
		stderr []string // substrings
	}{
		{"-h", []string{"-h"}, exitOK, []string{usage, "-tls-min-version", "kubectl-listenerset"}},
		{"serve -h", []string{"serve", "-h"}, exitOK, []string{usage, "-tls-min-version"}},
		{"arguments", []string{"serve", "extra"}, exitUsage,
			[]string{`listenerset-webhook takes no arguments, got ["extra"]`}},
		{"serve after flags", []string{"--port=1", "serve"}, exitUsage,
			[]string{`listenerset-webhook takes no arguments, got ["serve"]`}},
		{"bad flag", []string{"serve", "--port", "x"}, exitUsage,
			[]string{`invalid value "x" for flag -port`, usage}},
		{"bad enforcement", []string{"--enforcement=audit"}, exitUsage,
			[]string{`invalid value "audit" for flag -enforcement: must be "deny" or "warn"`, usage}},
		{"bad first claim", []string{"--first-claim=block"}, exitUsage,
			[]string{`invalid value "block" for flag -first-claim: must be one of "warn", "off" or "deny"`, usage}},
		{"bad tenant label", []string{"--tenant-label=Not A Label"}, exitUsage,
			[]string{`--tenant-label "Not A Label": name part must consist of alphanumeric characters`}},
		{"bad annotation key", []string{"--allowed-hostnames-annotation=a/b/c"}, exitUsage,
			[]string{`--allowed-hostnames-annotation "a/b/c": a valid label key must consist of`}},
		{"bad flag without serve", []string{"--nope"}, exitUsage,
			[]string{"flag provided but not defined: -nope", usage}},
		{"validate moved", []string{"validate", "-f", "x.yaml"}, exitUsage,
			[]string{"validate is not part of the server", "kubectl listenerset validate ...", "go install github.com/airlock/listenerset-webhook/cmd/kubectl-listenerset"}},
		{"listeners moved", []string{"listeners"}, exitUsage, []string{"`kubectl listenerset listeners ...`"}},
		{"policy moved", []string{"serve", "policy"}, exitUsage, []string{"`kubectl listenerset policy ...`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			code := run(tt.args, io.Discard, &errOut)
			assert.Equal(t, tt.exit, code, "exit code")
			for _, want := range tt.stderr {
				assert.Contains(t, errOut.String(), want, "stderr")
			}
		})
	}
}

// TestVersion: --version prints the version the linker set, the commit and
// the Go version on stdout, and exits 0 without serving.
func TestVersion(t *testing.T) {
	v, c := version.Version, version.Commit
	t.Cleanup(func() { version.Version, version.Commit = v, c })
	version.Version, version.Commit = "v9.8.7", "0123abcd"
	for _, args := range [][]string{{"--version"}, {"serve", "-version"}} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, exitOK, run(args, &stdout, &stderr), stderr.String())
		assert.Equal(t, "listenerset-webhook v9.8.7, commit 0123abcd, "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+"\n", stdout.String(), args)
		assert.Empty(t, stderr.String(), args)
	}
}

func TestServeFlagsDocumentDefaults(t *testing.T) {
	var stderr bytes.Buffer
	require.Equal(t, exitOK, run([]string{"-h"}, io.Discard, &stderr))
	for _, want := range []string{
		`-port int`, `(default 9443)`,
		`-health-probe-bind-address string`, `(default ":8081")`,
		`-metrics-bind-address string`, `(default ":8080")`,
		`-tls-min-version string`, `(default "1.2")`,
		`-enable-http2`, `-cert-dir string`, `-host string`,
		`-zap-log-level`, `-zap-devel`,
		`-cluster-checks`, `-strict`, `-watch-secrets`, `-kubeconfig string`,
		`-shutdown-delay duration`, `-shutdown-timeout duration`, `(default 1m35s)`,
		`-read-header-timeout duration`, `(default 10s)`, `-request-timeout duration`, `(default 30s)`,
		`-max-in-flight-bytes value`, `(default 24Mi)`, `-default-timeout duration`,
		`-enforcement value`, `(default deny)`,
	} {
		assert.Contains(t, stderr.String(), want)
	}
}

// TestServesWithAndWithoutServe: the built binary serves (/readyz answers
// 200) with "serve" first, as the chart and the image pass it, and without,
// and exits 0 on SIGTERM either way.
func TestServesWithAndWithoutServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts it twice")
	}
	bin, err := testproc.WebhookBinary()
	require.NoError(t, err)
	for name, first := range map[string][]string{"serve": {"serve"}, "bare": nil} {
		t.Run(name, func(t *testing.T) {
			ports, err := testproc.NewPorts()
			require.NoError(t, err)
			args := append(append(append(first, testproc.ServeFlags()...), "--host=127.0.0.1", "--cert-dir="+t.TempDir()), ports.Flags()...)
			proc, err := testproc.Start(exec.Command(bin, args...), filepath.Join(t.TempDir(), "log"))
			require.NoError(t, err)
			t.Cleanup(proc.Kill)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			require.NoError(t, testproc.WaitReady(ctx, ports.ReadyzURL(), time.Minute, proc.Ended), "%s %s\n%s", bin, strings.Join(args, " "), proc.Log())
			require.NoError(t, proc.Stop(30*time.Second), proc.Log())
			assert.Equal(t, 0, proc.ExitCode(), proc.Log())
		})
	}
}
