package image

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/test/localcluster"
)

// ociTool builds bin/ociimage (make ociimage) and returns its path.
func ociTool(t *testing.T) string {
	t.Helper()
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("make", "-s", "-C", root, "ociimage").CombinedOutput(); err != nil {
		t.Fatalf("make ociimage: %v\n%s", err, b)
	}
	return filepath.Join(root, "bin", "ociimage")
}

// multiPlatform runs ociimage for linux/amd64 and linux/arm64 over a file
// per architecture, written under dir, and returns the layout's files and
// the digest ociimage printed.
func multiPlatform(t *testing.T, tool, dir, sourceDateEpoch string) (map[string][]byte, string) {
	t.Helper()
	for _, arch := range []string{"amd64", "arm64"} {
		if err := os.MkdirAll(filepath.Join(dir, arch), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, arch, "x"), []byte("binary for "+arch), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "image.tar")
	cmd := exec.Command(tool, "-o", out, "-name", "localhost/x:test", "-platform", "linux/amd64", "-platform", "linux/arm64",
		"-file", "/x="+filepath.Join(dir, "{arch}", "x"), "-user", "65532:65532", "-entrypoint", "/x")
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+sourceDateEpoch)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("ociimage: %v", err)
	}
	fields := strings.Fields(string(b))
	if len(fields) != 3 {
		t.Fatalf("ociimage printed %q, want: path name digest", b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return readTar(t, bytes.NewReader(raw)), fields[2]
}

// TestImageIndex: more than one -platform gives one OCI image index whose
// digest ociimage prints, with one image per platform holding that
// platform's file, dated SOURCE_DATE_EPOCH; the same inputs from another
// directory give the same digest, another date another one (make release's
// image is built so).
func TestImageIndex(t *testing.T) {
	tool := ociTool(t)
	layout, digest := multiPlatform(t, tool, t.TempDir(), "1700000000")

	var top ociIndex
	if err := json.Unmarshal(layout["index.json"], &top); err != nil {
		t.Fatal(err)
	}
	if len(top.Manifests) != 1 || top.Manifests[0].MediaType != "application/vnd.oci.image.index.v1+json" {
		t.Fatalf("index.json %s: want one entry, an OCI image index", layout["index.json"])
	}
	if top.Manifests[0].Digest != digest {
		t.Errorf("index.json names %s, ociimage printed %s", top.Manifests[0].Digest, digest)
	}
	if got := top.Manifests[0].Annotations["io.containerd.image.name"]; got != "localhost/x:test" {
		t.Errorf("io.containerd.image.name = %q", got)
	}
	idxBlob := blob(t, layout, digest)
	if sum := sha256.Sum256(idxBlob); "sha256:"+hex.EncodeToString(sum[:]) != digest {
		t.Errorf("the index blob's SHA-256 is not its digest %s", digest)
	}
	var idx struct {
		Manifests []struct {
			MediaType string `json:"mediaType"`
			Digest    string `json:"digest"`
			Platform  struct {
				OS           string `json:"os"`
				Architecture string `json:"architecture"`
			} `json:"platform"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal(idxBlob, &idx); err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, m := range idx.Manifests {
		arch := m.Platform.Architecture
		platforms = append(platforms, m.Platform.OS+"/"+arch)
		var man ociManifest
		if err := json.Unmarshal(blob(t, layout, m.Digest), &man); err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			ociConfig
			Created string `json:"created"`
		}
		if err := json.Unmarshal(blob(t, layout, man.Config.Digest), &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.OS != m.Platform.OS || cfg.Architecture != arch {
			t.Errorf("%s: config says %s/%s", m.Digest, cfg.OS, cfg.Architecture)
		}
		if cfg.Created != "2023-11-14T22:13:20Z" {
			t.Errorf("%s: created %s, want SOURCE_DATE_EPOCH's 2023-11-14T22:13:20Z", arch, cfg.Created)
		}
		zr, err := gzip.NewReader(bytes.NewReader(blob(t, layout, man.Layers[0].Digest)))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(readTar(t, zr)["x"]); got != "binary for "+arch {
			t.Errorf("%s image's /x = %q, want its own architecture's file", arch, got)
		}
	}
	if strings.Join(platforms, " ") != "linux/amd64 linux/arm64" {
		t.Errorf("platforms %v, want linux/amd64 linux/arm64", platforms)
	}

	if _, again := multiPlatform(t, tool, t.TempDir(), "1700000000"); again != digest {
		t.Errorf("the same inputs elsewhere gave %s, then %s: not reproducible", digest, again)
	}
	if _, other := multiPlatform(t, tool, t.TempDir(), "1700000001"); other == digest {
		t.Errorf("another SOURCE_DATE_EPOCH gave the same digest %s: the date is not in the image", digest)
	}
}
