package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/airlock/listenerset-webhook/test/testproc"
)

// completionHelper is the script kubectl runs to complete a plugin's
// arguments: kubectl_complete-<plugin> on PATH.
const completionHelper = "kubectl_complete-listenerset"

// TestKubectlRunsThePlugin: the real kubectl (hack/k8s-binaries.sh's) finds
// the built plugin on PATH and runs it as `kubectl listenerset`, with its
// arguments, streams and exit code passed through, and completes
// `kubectl listenerset ...` through completionHelper.
func TestKubectlRunsThePlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin and runs kubectl")
	}
	kubectl := kubectlBinary(t)
	plugin, err := testproc.PluginBinary()
	require.NoError(t, err)
	dir := filepath.Dir(plugin)
	helper, err := os.ReadFile(completionHelper)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, completionHelper), helper, 0o755))
	// The plugin's directory first on PATH; a HOME without a kubeconfig.
	env := append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir(), "KUBECONFIG=")
	kubectlRun := func(args ...string) (stdout, stderr string, code int) {
		cmd := exec.Command(kubectl, args...)
		cmd.Env = env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), errOut.String(), exit.ExitCode()
		}
		require.NoError(t, err, "kubectl %s", strings.Join(args, " "))
		return out.String(), errOut.String(), 0
	}

	out, _, code := kubectlRun("plugin", "list", "--name-only")
	require.Equal(t, 0, code, out)
	assert.Contains(t, strings.Fields(out), "kubectl-listenerset", "kubectl plugin list")

	for _, args := range [][]string{
		{"validate", "-f", filepath.Join("testdata", "input", "duplicate.yaml")},
		{"validate", "-o", "json", filepath.Join("testdata", "input", "valid.yaml")},
		{"policy", "--validation-actions", "Warn"},
		{"validate", "--nope"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout, stderr, code := kubectlRun(append([]string{"listenerset"}, args...)...)
			var wantOut, wantErr bytes.Buffer
			wantCode := run(args, strings.NewReader(""), &wantOut, &wantErr)
			assert.Equal(t, wantCode, code, "exit code, as run returns it\n%s", stderr)
			assert.Equal(t, wantOut.String(), stdout, "stdout")
			assert.Equal(t, wantErr.String(), stderr, "stderr")
		})
	}
	stdout, _, code := kubectlRun("listenerset", "validate", "-f", filepath.Join("testdata", "input", "duplicate.yaml"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, `The ListenerSet "team-a/dup" is invalid: spec.listeners[1].name: Duplicate value: "web"`)

	// kubectl's own completion hands `listenerset ...` to the helper, which
	// asks the plugin: the formats for -o, the commands after listenerset.
	stdout, stderr, code := kubectlRun("__complete", "listenerset", "validate", "-o", "")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"text", "json", "junit", "sarif", "github", "jsonl", ":4"}, completionLines(stdout), stdout)
	stdout, stderr, code = kubectlRun("__complete", "listenerset", "")
	require.Equal(t, 0, code, stderr)
	assert.Subset(t, completionLines(stdout), []string{"completion", "listeners", "policy", "validate", "why"}, stdout)
}

// completionLines are cobra's completion candidates without their
// descriptions (after a tab), then the directive line.
func completionLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		name, _, _ := strings.Cut(l, "\t")
		if !strings.HasPrefix(name, "Completion ended with directive") {
			lines = append(lines, name)
		}
	}
	return lines
}

// kubectlBinary is the kubectl hack/k8s-binaries.sh has built (make test
// builds it first); without it the test skips, saying how to build it.
func kubectlBinary(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join("..", "..", "hack", "k8s-binaries.sh"), "dir").Output()
	require.NoError(t, err, "hack/k8s-binaries.sh dir")
	kubectl := filepath.Join(strings.TrimSpace(string(out)), "kubectl")
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("no kubectl at %s: make k8s-binaries builds it", kubectl)
	}
	return kubectl
}
