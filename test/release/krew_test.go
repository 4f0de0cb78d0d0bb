package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/test/localcluster"
)

// The release the test builds: a version of its own, whose notes are
// CHANGELOG.md's [Unreleased] (as make release-check builds it).
const testVersion = "v0.0.0-krew"

const (
	pluginName = "listenerset"         // the manifest's name: kubectl runs the plugin as kubectl listenerset
	binary     = "kubectl-listenerset" // the executable in each archive, the manifest's bin
	indexName  = "airlock"             // the local index's name in krew
)

// manifest is what the test reads of the release's krew plugin manifest.
type manifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Version   string `json:"version"`
		Platforms []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			Sha256 string `json:"sha256"`
			Bin    string `json:"bin"`
			Files  []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"files"`
		} `json:"platforms"`
	} `json:"spec"`
}

// TestKrewInstall installs the release's kubectl plugin as a kubectl user
// does with krew (docs/release.md): make release for this machine's platform
// with KREW_URI_BASE at a loopback HTTP server that serves dist/, the
// manifest committed to a local git repository, `krew index add` of it,
// `krew install airlock/listenerset`, which downloads the archive from that
// server and checks its SHA-256, then `kubectl listenerset version` through
// the real kubectl. krew's root, HOME and PATH are the test's own; git may
// use local repositories only (GIT_ALLOW_PROTOCOL=file).
func TestKrewInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("long: builds a release (make test-release; make test-all runs it)")
	}
	root, err := localcluster.RepoRoot()
	require.NoError(t, err)
	tools := releaseTools(t, root)
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	srv := &archiveServer{dir: dist}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)

	keyDir, password := filepath.Join(tmp, "key"), "krew-test"
	require.NoError(t, os.Mkdir(keyDir, 0o700))
	run(t, keyDir, []string{"COSIGN_PASSWORD=" + password}, tools.cosign, "generate-key-pair")
	platform := "linux/" + runtime.GOARCH
	start := time.Now()
	// RELEASE_TOOL_TARGETS empty: make test-release and make test-all built the tools.
	run(t, root, []string{"DIST=" + dist, "COSIGN_KEY=" + filepath.Join(keyDir, "cosign.key"), "COSIGN_PASSWORD=" + password,
		"NOTES_SECTION=Unreleased", "RELEASE_PLATFORMS=" + platform, "KREW_URI_BASE=" + hs.URL},
		"make", "-s", "--no-print-directory", "release", "VERSION="+testVersion, "RELEASE_TOOL_TARGETS=")
	t.Logf("make release VERSION=%s RELEASE_PLATFORMS=%s in %s", testVersion, platform, time.Since(start).Round(time.Second))

	// The manifest: this platform's archive, at KREW_URI_BASE, with its SHA-256.
	archive := fmt.Sprintf("%s-%s-linux-%s.tar.gz", binary, testVersion, runtime.GOARCH)
	manifestFile := filepath.Join(dist, pluginName+".yaml")
	raw, err := os.ReadFile(manifestFile)
	require.NoError(t, err)
	var m manifest
	require.NoError(t, yaml.Unmarshal(raw, &m))
	assert.Equal(t, "krew.googlecontainertools.github.com/v1alpha2", m.APIVersion)
	assert.Equal(t, "Plugin", m.Kind)
	assert.Equal(t, pluginName, m.Metadata.Name)
	assert.Equal(t, "Apache-2.0", m.Metadata.Annotations["artifacthub.io/license"], "the manifest's license")
	assert.Equal(t, testVersion, m.Spec.Version)
	require.Len(t, m.Spec.Platforms, 1, "RELEASE_PLATFORMS=%s: one platform\n%s", platform, raw)
	p := m.Spec.Platforms[0]
	assert.Equal(t, map[string]string{"os": "linux", "arch": runtime.GOARCH}, p.Selector.MatchLabels)
	assert.Equal(t, hs.URL+"/"+archive, p.URI)
	assert.Equal(t, fileSHA256(t, filepath.Join(dist, archive)), p.Sha256)
	assert.Equal(t, binary, p.Bin)
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	require.NoError(t, err)
	assert.Contains(t, string(sums), p.Sha256+"  "+archive+"\n")
	assert.Contains(t, string(sums), fileSHA256(t, manifestFile)+"  "+pluginName+".yaml\n")

	// The archive: the files the manifest names, the binary the release's own.
	entries := readArchive(t, filepath.Join(dist, archive))
	var files []string
	for _, f := range p.Files {
		assert.Equal(t, ".", f.To, f.From)
		files = append(files, f.From)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	assert.Equal(t, files, names, "the archive holds the manifest's files")
	assert.Equal(t, []string{"LICENSE", binary}, names, "the archive holds the LICENSE and the binary")
	releaseBinary := filepath.Join(dist, fmt.Sprintf("%s-%s-linux-%s", binary, testVersion, runtime.GOARCH))
	epoch := sourceDateEpoch(t, root)
	for _, e := range entries {
		assert.Equal(t, epoch, e.ModTime.Unix(), "%s: dated SOURCE_DATE_EPOCH", e.Name)
		assert.Equal(t, [2]int{0, 0}, [2]int{e.Uid, e.Gid}, "%s: owned by root", e.Name)
		if e.Name == binary {
			assert.Equal(t, int64(0o755), e.Mode, e.Name)
			assert.Equal(t, fileSHA256(t, releaseBinary), hex.EncodeToString(e.sum[:]), "the archive's binary is the release's")
		} else {
			assert.Equal(t, int64(0o644), e.Mode, e.Name)
		}
	}

	// A custom index: a git repository with plugins/listenerset.yaml.
	index := filepath.Join(tmp, "index")
	require.NoError(t, os.MkdirAll(filepath.Join(index, "plugins"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(index, "plugins", pluginName+".yaml"), raw, 0o644))
	gitEnv := []string{"HOME=" + filepath.Join(tmp, "home"), "GIT_CONFIG_NOSYSTEM=1"}
	run(t, index, gitEnv, "git", "-c", "init.defaultBranch=main", "init", "-q")
	run(t, index, gitEnv, "git", "add", "plugins")
	run(t, index, gitEnv, "git", "-c", "user.name=release test", "-c", "user.email=release-test@localhost", "commit", "-q", "-m", "listenerset "+testVersion)

	krewRoot := filepath.Join(tmp, "krew")
	env := tools.userEnv(tmp, krewRoot)
	start = time.Now()
	out := run(t, tmp, env, tools.krew, "index", "add", indexName, index)
	out += run(t, tmp, env, tools.krew, "install", indexName+"/"+pluginName)
	t.Logf("krew index add and install in %s:\n%s", time.Since(start).Round(100*time.Millisecond), out)
	assert.Contains(t, out, "Installed plugin: "+pluginName)
	assert.Equal(t, []string{"GET /" + archive + " 200"}, srv.log(), "krew downloaded the archive from KREW_URI_BASE, once")

	// What krew installed: the archive's files, the binary the release's, linked into krew's bin.
	store := filepath.Join(krewRoot, "store", pluginName, testVersion)
	installed, err := os.ReadDir(store)
	require.NoError(t, err)
	var got []string
	for _, e := range installed {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, files, got, "krew's store holds the manifest's files")
	assert.Equal(t, fileSHA256(t, releaseBinary), fileSHA256(t, filepath.Join(store, binary)))
	link := filepath.Join(krewRoot, "bin", binary)
	target, err := filepath.EvalSymlinks(link)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(store, binary), target)

	// kubectl finds the plugin in krew's bin (and nowhere else on PATH) and runs it.
	out = run(t, tmp, env, tools.kubectl, "plugin", "list")
	assert.Contains(t, out, link, "kubectl plugin list")
	assert.Equal(t, 1, strings.Count(out, binary), "kubectl plugin list:\n%s", out)
	version := run(t, tmp, env, tools.kubectl, "listenerset", "version")
	t.Logf("kubectl listenerset version: %s", version)
	head := strings.TrimSpace(run(t, root, nil, "git", "rev-parse", "HEAD"))
	assert.True(t, strings.HasPrefix(version, fmt.Sprintf("%s %s, commit %s", binary, testVersion, head)), version)
	assert.True(t, strings.HasSuffix(version, " linux/"+runtime.GOARCH+"\n"), version)

	t.Run("KrewIndexCheck", func(t *testing.T) {
		// What krew-index's CI runs on a submitted manifest: validate-krew-manifest checks its
		// structure and platforms, installs each platform with `kubectl krew install --manifest`
		// in a KREW_ROOT of its own (under TMPDIR), and wants a license file among what krew installed.
		krewPlugin := filepath.Join(tmp, "kubectl-krew")
		require.NoError(t, os.Mkdir(krewPlugin, 0o755))
		require.NoError(t, os.Symlink(tools.krew, filepath.Join(krewPlugin, "kubectl-krew")))
		cmd := exec.Command(tools.validate, "-manifest", filepath.Join(index, "plugins", pluginName+".yaml"))
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PATH="+krewPlugin+string(os.PathListSeparator)+filepath.Dir(tools.kubectl))
		out, err := cmd.CombinedOutput()
		assert.Contains(t, string(out), "structural validation OK")
		assert.Contains(t, string(out), "no overlapping spec.platform[].selector")
		assert.Equal(t, []string{"GET /" + archive + " 200"}, srv.log(), "validate-krew-manifest installed from KREW_URI_BASE")
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), "all 1 spec.platforms installed fine")
	})

	t.Run("AChangedArchiveIsRefused", func(t *testing.T) {
		// The same index in a new krew root; the server flips the archive's last byte.
		srv.tamper.Store(true)
		t.Cleanup(func() { srv.tamper.Store(false) })
		krewRoot := filepath.Join(tmp, "krew-changed")
		env := tools.userEnv(tmp, krewRoot)
		run(t, tmp, env, tools.krew, "index", "add", indexName, index)
		cmd := exec.Command(tools.krew, "install", indexName+"/"+pluginName)
		cmd.Dir, cmd.Env = tmp, append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "krew install of a changed archive: %v\n%s", err, out)
		assert.Contains(t, string(out), "checksum does not match", "krew checks the manifest's sha256")
		assert.NoFileExists(t, filepath.Join(krewRoot, "bin", binary))
	})
}

// toolPaths are the programs the test runs beside make release.
type toolPaths struct {
	krew, validate, cosign, kubectl, git string
}

// releaseTools finds what make release and the install need, or skips the
// test naming what is missing and how to build it.
func releaseTools(t *testing.T, root string) toolPaths {
	t.Helper()
	dir := func(what string) string {
		out, err := exec.Command("bash", filepath.Join(root, localcluster.BinariesScript), what).Output()
		require.NoError(t, err, "%s %s", localcluster.BinariesScript, what)
		return strings.TrimSpace(string(out))
	}
	bin := filepath.Join(root, "bin")
	tl := toolPaths{krew: filepath.Join(bin, "krew"), validate: filepath.Join(bin, "validate-krew-manifest"),
		cosign: filepath.Join(bin, "cosign"), kubectl: filepath.Join(dir("dir"), "kubectl")}
	var missing []string
	for _, f := range []string{tl.krew, tl.validate, tl.cosign, filepath.Join(bin, "cyclonedx-gomod"), filepath.Join(bin, "ociimage"),
		filepath.Join(dir("helm-dir"), "helm"), tl.kubectl} {
		if _, err := os.Stat(f); err != nil {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		t.Skipf("needs %s: make test-release builds them (make krew cosign cyclonedx-gomod ociimage helm k8s-binaries)",
			strings.Join(missing, ", "))
	}
	var err error
	tl.git, err = exec.LookPath("git")
	require.NoError(t, err, "krew clones its indexes with git")
	return tl
}

// userEnv is a kubectl user's environment of its own under tmp: krew's root,
// a HOME without a kubeconfig or git configuration, and a PATH of krew's bin,
// kubectl and git alone. krew checks for no update of itself; git, which
// krew clones and updates indexes with, may use local repositories only, and
// the default index, which krew adds when it has none, is a path that does not
// exist: nothing leaves the machine.
func (tl toolPaths) userEnv(tmp, krewRoot string) []string {
	path := strings.Join([]string{filepath.Join(krewRoot, "bin"), filepath.Dir(tl.kubectl), filepath.Dir(tl.git)}, string(os.PathListSeparator))
	return []string{"KREW_ROOT=" + krewRoot, "HOME=" + filepath.Join(tmp, "home"), "PATH=" + path,
		"KUBECONFIG=" + filepath.Join(tmp, "home", "no-kubeconfig"), "KREW_NO_UPGRADE_CHECK=1",
		"KREW_DEFAULT_INDEX_URI=" + filepath.Join(tmp, "no-default-index"), "GIT_ALLOW_PROTOCOL=file", "GIT_CONFIG_NOSYSTEM=1"}
}

// run runs name with args in dir, the test's environment with env added,
// and returns its combined output; it fails the test when the command fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return string(out)
}

// archiveServer serves the files of dir over HTTP, as the release's download
// location does, and logs each request; with tamper, it changes the last
// byte of what it serves.
type archiveServer struct {
	dir      string
	tamper   atomic.Bool
	mu       sync.Mutex
	requests []string
}

func (s *archiveServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(os.DirFS(s.dir), strings.TrimPrefix(r.URL.Path, "/"))
	status := http.StatusOK
	if err != nil {
		status = http.StatusNotFound
	}
	s.mu.Lock()
	s.requests = append(s.requests, fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, status))
	s.mu.Unlock()
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if s.tamper.Load() && len(b) > 0 {
		b = bytes.Clone(b)
		b[len(b)-1] ^= 1
	}
	_, _ = w.Write(b)
}

// log returns the requests so far and starts a new log.
func (s *archiveServer) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.requests
	s.requests = nil
	return l
}

// archiveEntry is a tar header with the SHA-256 of its content.
type archiveEntry struct {
	tar.Header
	sum [sha256.Size]byte
}

func readArchive(t *testing.T, file string) []archiveEntry {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	var entries []archiveEntry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		hash := sha256.New()
		_, err = io.Copy(hash, tr)
		require.NoError(t, err)
		e := archiveEntry{Header: *h}
		copy(e.sum[:], hash.Sum(nil))
		entries = append(entries, e)
	}
	return entries
}

func fileSHA256(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// sourceDateEpoch is the time the release dates its archives' entries:
// SOURCE_DATE_EPOCH, by default the commit's time (hack/release.sh).
func sourceDateEpoch(t *testing.T, root string) int64 {
	t.Helper()
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		s = strings.TrimSpace(run(t, root, nil, "git", "log", "-1", "--format=%ct"))
	}
	epoch, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return epoch
}
