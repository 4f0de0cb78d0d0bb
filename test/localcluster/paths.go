package localcluster

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModulePath is the product module; RepoRoot looks for its go.mod.
const ModulePath = "github.com/airlock/listenerset-webhook"

// BinariesScript builds kube-apiserver, kubectl and etcd, relative to RepoRoot.
const BinariesScript = "hack/k8s-binaries.sh"

// KubeVersionEnv names the Kubernetes version (1.30.14) whose kube-apiserver
// and kubectl the tests run: BinariesScript reads it (the default when unset
// is the script's DEFAULT_KUBE_VERSION), and Start checks that the server it
// started reports it. The version matrix (hack/matrix) sets it.
const KubeVersionEnv = "KUBE_VERSION"

// RepoRoot finds the checkout this code runs in: the nearest directory at or
// above the working directory whose go.mod declares ModulePath. Tests run in
// their package directory and `make run` in the root, so both find it.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if modulePathOf(filepath.Join(dir, "go.mod")) == ModulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of module %s at or above the working directory", ModulePath)
		}
		dir = parent
	}
}

func modulePathOf(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// EnsureBinaries runs hack/k8s-binaries.sh, which builds kube-apiserver,
// kubectl and etcd from source when they are missing or stale (about 11
// minutes cold on 2 cores) and returns at once otherwise, and returns the
// directory that holds them. The script's progress goes to progress (may be
// nil).
func EnsureBinaries(ctx context.Context, root string, progress io.Writer) (string, error) {
	if progress == nil {
		progress = io.Discard
	}
	script := filepath.Join(root, BinariesScript)
	var tail tailBuffer
	cmd := exec.CommandContext(ctx, "bash", script, "k8s")
	cmd.Dir = root
	w := io.MultiWriter(progress, &tail) // one writer: exec copies both streams in one goroutine
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s k8s failed (%w); its last output:\n%s", BinariesScript, err, tail.String())
	}
	out, err := exec.CommandContext(ctx, "bash", script, "dir").Output()
	if err != nil {
		return "", fmt.Errorf("%s dir: %w", BinariesScript, err)
	}
	dir := strings.TrimSpace(string(out))
	for _, b := range []string{"kube-apiserver", "kubectl", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("%s ran but %s is missing: %w", BinariesScript, b, err)
		}
	}
	return dir, nil
}

// tailBuffer keeps the last 8 KiB written to it, for error messages.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - 8<<10; over > 0 {
		t.b = t.b[over:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }
