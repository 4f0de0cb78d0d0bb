package repository

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The binaries are built once per machine (hack/k8s-binaries.sh, CONTRIBUTING.md): a clone's bin/ links
// into the user cache, which every clone shares. These tests stand in for a clone a directory holding
// what the script reads of one (itself and the tools modules it builds), copied from this work tree so
// that they check the script as it is here, edits included.

// newClone copies hack/k8s-binaries.sh and the tools modules named into a new directory, and returns it.
func newClone(t *testing.T, toolsModules ...string) string {
	t.Helper()
	clone := t.TempDir()
	copyTree(t, filepath.Join(root, "hack", "k8s-binaries.sh"), filepath.Join(clone, "hack", "k8s-binaries.sh"))
	for _, m := range toolsModules {
		copyTree(t, filepath.Join(root, "hack", "tools", m), filepath.Join(clone, "hack", "tools", m))
	}
	return clone
}

// copyTree copies the file or directory from to to, with the files' modes.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, info.Mode().Perm())
	}))
}

// binaries runs the clone's hack/k8s-binaries.sh with args and env added to the test's environment,
// and returns its output (stdout and stderr), its exit code and how long it took.
func binaries(t *testing.T, clone string, env []string, args ...string) (string, int, time.Duration) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(clone, "hack", "k8s-binaries.sh")}, args...)...)
	cmd.Dir = clone
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode(), took
	}
	require.NoError(t, err, "hack/k8s-binaries.sh %v", args)
	return out.String(), 0, took
}

// cachePath is the cache directory the clone's script names for set.
func cachePath(t *testing.T, clone string, env []string, set string) string {
	t.Helper()
	out, code, _ := binaries(t, clone, env, "cache-path", set)
	require.Zero(t, code, "cache-path %s: %s", set, out)
	return strings.TrimSpace(out)
}

// TestToolBuiltOncePerMachine: a second clone with the same tools module builds nothing: its
// bin/gotestsum links to the binary the first clone built into the cache, which stays as it was; the
// cache key changes with what changes the binary; two clones asking at once for a key the cache lacks
// build it once; make clean-cache removes what the script keeps there, nothing else. (gotestsum:
// make test has built it, so that a build here is a link from the Go build cache, about a second.)
func TestToolBuiltOncePerMachine(t *testing.T) {
	cache := t.TempDir()
	env := []string{"LISTENERSET_CACHE=" + cache, "FORCE=", "NO_BUILD="}
	first, second := newClone(t, "gotestsum"), newClone(t, "gotestsum")

	out, code, took := binaries(t, first, env, "gotestsum")
	require.Zero(t, code, out)
	t.Logf("first clone, empty cache: %s\n%s", took.Round(time.Millisecond), out)
	require.Contains(t, out, "building gotestsum")
	want := filepath.Join(cachePath(t, first, env, "gotestsum"), "gotestsum")
	require.True(t, strings.HasPrefix(want, filepath.Join(cache, "gotestsum")+string(filepath.Separator)), "cache-path %s is not in %s", want, cache)
	assertLink(t, filepath.Join(first, "bin", "gotestsum"), want)
	built, err := os.Stat(want)
	require.NoError(t, err)
	version, err := exec.Command(filepath.Join(first, "bin", "gotestsum"), "--version").CombinedOutput()
	require.NoError(t, err, "bin/gotestsum --version: %s", version)

	out, code, took = binaries(t, second, env, "gotestsum")
	require.Zero(t, code, out)
	t.Logf("second clone: %s\n%s", took.Round(time.Millisecond), out)
	assert.Contains(t, out, "up to date")
	assert.NotContains(t, out, "building", "the second clone built")
	assertLink(t, filepath.Join(second, "bin", "gotestsum"), want)
	again, err := os.Stat(want)
	require.NoError(t, err)
	assert.True(t, os.SameFile(built, again) && again.ModTime().Equal(built.ModTime()), "the cached binary was replaced")
	key := filepath.Base(filepath.Dir(want))
	assert.Equal(t, []string{key, key + ".lock"}, dirNames(t, filepath.Join(cache, "gotestsum")),
		"the cache's gotestsum/: one key, its lock, no temporary directory left")

	// NO_BUILD=1 links what the cache holds, and builds nothing else.
	out, code, _ = binaries(t, second, append(env, "NO_BUILD=1"), "gotestsum")
	assert.Zero(t, code, out)

	// The key covers the tools module's files, GOARCH and the Go toolchain's version: another go.mod is
	// another directory, which NO_BUILD=1 refuses to build (exit 3).
	gomod := filepath.Join(second, "hack", "tools", "gotestsum", "go.mod")
	data, err := os.ReadFile(gomod)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(gomod, append(data, "// another go.mod\n"...), 0o644))
	changed := cachePath(t, second, env, "gotestsum")
	assert.NotEqual(t, filepath.Dir(want), changed, "a changed go.mod has the same cache key")
	out, code, _ = binaries(t, second, append(env, "NO_BUILD=1"), "gotestsum")
	assert.Equal(t, 3, code, "NO_BUILD=1 with a key the cache lacks: %s", out)
	assert.NoDirExists(t, changed)
	assert.NotEqual(t, filepath.Dir(want), cachePath(t, first, append(env, "GOARCH=arm64"), "gotestsum"), "GOARCH=arm64 has the same key")
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	require.NoError(t, err)
	stamp, err := os.ReadFile(filepath.Join(filepath.Dir(want), ".stamp"))
	require.NoError(t, err)
	assert.Contains(t, strings.Split(string(stamp), "\n"), strings.TrimSpace(string(goVersion)), "the stamp, of which the key is a hash, lacks the Go version")

	// Two clones building one key at once: one builds, the other waits and finds it built.
	both := t.TempDir()
	bothEnv := []string{"LISTENERSET_CACHE=" + both, "FORCE=", "NO_BUILD="}
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i, clone := range []string{first, newClone(t, "gotestsum")} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, code, _ := binaries(t, clone, bothEnv, "gotestsum")
			assert.Zero(t, code, out)
			outs[i] = out
		}()
	}
	wg.Wait()
	t.Logf("two clones at once:\n%s\n%s", outs[0], outs[1])
	assert.Equal(t, 1, strings.Count(outs[0]+outs[1], "building gotestsum v"), "two clones at once: not exactly one build")
	assert.Equal(t, []string{key, key + ".lock"}, dirNames(t, filepath.Join(both, "gotestsum")),
		"two clones at once: want one key, its lock, no temporary directory left")

	// clean-cache: what the script keeps, not a file of another's.
	other := filepath.Join(cache, "someone-else's")
	require.NoError(t, os.WriteFile(other, nil, 0o644))
	out, code, _ = binaries(t, first, env, "clean-cache")
	require.Zero(t, code, out)
	assert.NoDirExists(t, filepath.Join(cache, "gotestsum"))
	assert.FileExists(t, other)
}

// dirNames lists dir's entries' names, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// assertLink: link is a symbolic link to target.
func assertLink(t *testing.T, link, target string) {
	t.Helper()
	got, err := os.Readlink(link)
	if assert.NoError(t, err, "%s is not a link into the cache", link) {
		assert.Equal(t, target, got, "%s links elsewhere", link)
	}
}

// TestKubernetesBinariesFromTheCache: a new clone links kube-apiserver, kubectl and etcd from the
// machine's cache (the real one: make test has built them there) without building them (NO_BUILD=1),
// and kube-apiserver runs from the link.
func TestKubernetesBinariesFromTheCache(t *testing.T) {
	clone := newClone(t, "k8s", "etcd")
	env := []string{"NO_BUILD=1", "FORCE=", "KUBE_VERSION=", "K8S_BIN_DIR="}
	out, code, took := binaries(t, clone, env, "k8s")
	if code == 3 {
		t.Skipf("the cache holds no k8s set of this checkout (make k8s-binaries builds it): %s", out)
	}
	require.Zero(t, code, out)
	t.Logf("a new clone, the k8s set cached: %s\n%s", took.Round(time.Millisecond), out)
	assert.Contains(t, out, "up to date")
	dir := cachePath(t, clone, env, "k8s")
	binDir, code, _ := binaries(t, clone, env, "dir")
	require.Zero(t, code)
	for _, b := range []string{"kube-apiserver", "kubectl", "etcd"} {
		assertLink(t, filepath.Join(strings.TrimSpace(binDir), b), filepath.Join(dir, b))
	}
	version, err := exec.Command(filepath.Join(strings.TrimSpace(binDir), "kube-apiserver"), "--version").CombinedOutput()
	require.NoError(t, err, "kube-apiserver --version: %s", version)
	assert.Contains(t, string(version), "Kubernetes v")
}
