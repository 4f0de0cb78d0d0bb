package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/why"
)

// unreachableKubeconfig is a kubeconfig whose context's namespace is
// team-x and whose server nothing listens on.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: team-x}}]
current-context: x
`), 0o600))
	return path
}

func TestWhyCommandLine(t *testing.T) {
	usage := "kubectl listenerset why NAMESPACE/NAME [flags]"
	see := "See 'kubectl listenerset why --help' for usage."
	kc := unreachableKubeconfig(t)
	tests := []struct {
		name           string
		args           []string
		exit           int
		stdout, stderr []string
	}{
		{"-h", []string{"why", "-h"}, exitOK, []string{usage, "--kubeconfig string", "--context string", "-n, --namespace string", "-o, --output string",
			"--tenant-label", "Exit status: 0 nothing wrong"}, nil},
		{"no argument", []string{"why"}, exitUsage, nil, []string{"error: why takes one ListenerSet, NAMESPACE/NAME or NAME; got 0 arguments", see}},
		{"two arguments", []string{"why", "a/b", "c/d"}, exitUsage, nil, []string{"got 2 arguments"}},
		{"bad form", []string{"why", "a/b/c"}, exitUsage, nil, []string{`error: "a/b/c": must be NAMESPACE/NAME or NAME`}},
		{"-n disagrees", []string{"why", "a/b", "-n", "c"}, exitUsage, nil, []string{`error: "a/b" names namespace "a", -n names "c"`}},
		{"bad format", []string{"why", "a/b", "-o", "yaml", "--kubeconfig", kc}, exitUsage, nil, []string{`error: -o "yaml": must be json`}},
		{"missing kubeconfig", []string{"why", "a/b", "--kubeconfig", filepath.Join(t.TempDir(), "none")}, why.ExitCannotRun, nil, []string{"error: ", "none"}},
		// NAME alone is looked up in the context's namespace.
		{"unreachable, the context's namespace", []string{"why", "shop", "--kubeconfig", kc}, why.ExitCannotRun, nil,
			[]string{"error: reading ListenerSet team-x/shop: "}},
		{"unreachable, -n", []string{"why", "shop", "-n", "team-y", "--kubeconfig", kc}, why.ExitCannotRun, nil,
			[]string{"error: reading ListenerSet team-y/shop: "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertRun(t, tt.args, tt.exit, tt.stdout, tt.stderr)
		})
	}
}

// TestWhyCompletion: the NAME argument is completed from the cluster;
// a cluster that cannot be reached completes quietly nothing.
func TestWhyCompletion(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run([]string{"__complete", "why", "--kubeconfig", unreachableKubeconfig(t), ""}, strings.NewReader(""), &out, &errOut))
	assert.Equal(t, []string{":4"}, completionLines(out.String()))
	out.Reset()
	require.Equal(t, exitOK, run([]string{"__complete", "why", "-o", ""}, strings.NewReader(""), &out, &errOut))
	assert.Equal(t, []string{"json", ":4"}, completionLines(out.String()))
}
