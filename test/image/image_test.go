// Package image tests `make image`, the product's OCI image tarball built
// without Docker (hack/tools/ociimage), against the repository's Dockerfile:
// the same base (scratch: nothing but the final stage's COPY destinations),
// user, entrypoint, command and exposed ports, the same passwd and group
// entries, and a static binary of the image's platform. The tarball is read
// here with the standard library alone (OCI image layout: index.json, the
// manifest, the config, the layers), not with the library that wrote it.
//
// -short skips it: it builds the binary and the image tool.
package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/test/localcluster"
)

// dockerfile is what the final stage of the Dockerfile says about the image.
type dockerfile struct {
	base       string
	user       string
	entrypoint []string
	cmd        []string
	ports      []string
	copies     []string          // destinations of the final stage's COPY lines
	written    map[string]string // files the build stage writes with `echo '...' > /out/<path>`, by image path
}

// parseDockerfile reads the instructions the image test compares. It knows
// the Dockerfile's own forms (JSON-array ENTRYPOINT/CMD, COPY with a
// trailing destination) and fails on a final-stage instruction it does not
// know, so that a new one is looked at rather than ignored.
func parseDockerfile(t *testing.T, path string) dockerfile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Join continuation lines.
	text := regexp.MustCompile(`\\\n\s*`).ReplaceAllString(string(raw), " ")
	df := dockerfile{written: map[string]string{}}
	echo := regexp.MustCompile(`echo '([^']*)' > /out(/\S+)`)
	// The lines of each stage; the image is the last one.
	var stages [][]string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, m := range echo.FindAllStringSubmatch(line, -1) {
			df.written[m[2]] = m[1] + "\n"
		}
		if instr, _, _ := strings.Cut(line, " "); strings.EqualFold(instr, "FROM") {
			stages = append(stages, nil)
		}
		if len(stages) > 0 {
			stages[len(stages)-1] = append(stages[len(stages)-1], line)
		}
	}
	if len(stages) == 0 {
		t.Fatal("no FROM in the Dockerfile")
	}
	for _, line := range stages[len(stages)-1] {
		instr, rest, _ := strings.Cut(line, " ")
		switch strings.ToUpper(instr) {
		case "FROM":
			df.base = strings.Fields(rest)[0]
		case "USER":
			df.user = rest
		case "EXPOSE":
			for _, p := range strings.Fields(rest) {
				if !strings.Contains(p, "/") {
					p += "/tcp"
				}
				df.ports = append(df.ports, p)
			}
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(rest), &df.entrypoint); err != nil {
				t.Fatalf("ENTRYPOINT %s: not a JSON array: %v", rest, err)
			}
		case "CMD":
			if err := json.Unmarshal([]byte(rest), &df.cmd); err != nil {
				t.Fatalf("CMD %s: not a JSON array: %v", rest, err)
			}
		case "COPY":
			f := strings.Fields(rest)
			dst := f[len(f)-1]
			for _, s := range f[:len(f)-1] {
				if strings.HasPrefix(s, "--") {
					continue
				}
				if strings.HasSuffix(dst, "/") {
					df.copies = append(df.copies, dst+filepath.Base(s))
				} else {
					df.copies = append(df.copies, dst)
				}
			}
		case "ARG":
		default:
			t.Fatalf("the Dockerfile's final stage has %s, which this test does not compare yet: %s", instr, line)
		}
	}
	return df
}

type ociIndex struct {
	Manifests []struct {
		MediaType   string            `json:"mediaType"`
		Digest      string            `json:"digest"`
		Annotations map[string]string `json:"annotations"`
	} `json:"manifests"`
}

type ociManifest struct {
	MediaType string `json:"mediaType"`
	Config    struct {
		MediaType string `json:"mediaType"`
		Digest    string `json:"digest"`
	} `json:"config"`
	Layers []struct {
		MediaType string `json:"mediaType"`
		Digest    string `json:"digest"`
	} `json:"layers"`
}

type ociConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		User         string              `json:"User"`
		Entrypoint   []string            `json:"Entrypoint"`
		Cmd          []string            `json:"Cmd"`
		ExposedPorts map[string]struct{} `json:"ExposedPorts"`
	} `json:"config"`
}

// readTar returns the regular files of a tar stream by name (and their
// modes in modes, when not nil).
func readTar(t *testing.T, r io.Reader, modes ...map[string]int64) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(h.Name, "./")] = b
		for _, m := range modes {
			m[strings.TrimPrefix(h.Name, "./")] = h.Mode
		}
	}
}

func blob(t *testing.T, files map[string][]byte, digest string) []byte {
	t.Helper()
	algo, hex, _ := strings.Cut(digest, ":")
	b, ok := files["blobs/"+algo+"/"+hex]
	if !ok {
		t.Fatalf("blob %s missing from the OCI layout", digest)
	}
	return b
}

func TestImageMatchesDockerfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and the image tool")
	}
	root, err := localcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "image.tar")
	const name = "localhost/listenerset-webhook:image-test"
	cmd := exec.Command("make", "-s", "-C", root, "image", "IMAGE="+out, "IMAGE_NAME="+name)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make image: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	layout := readTar(t, bytes.NewReader(raw))
	if got := string(layout["oci-layout"]); !strings.Contains(got, `"imageLayoutVersion"`) {
		t.Fatalf("oci-layout = %q, want an OCI image layout", got)
	}
	var idx ociIndex
	if err := json.Unmarshal(layout["index.json"], &idx); err != nil {
		t.Fatalf("index.json: %v", err)
	}
	if len(idx.Manifests) != 1 {
		t.Fatalf("index.json has %d manifests, want 1", len(idx.Manifests))
	}
	if got := idx.Manifests[0].Annotations["io.containerd.image.name"]; got != name {
		t.Errorf("io.containerd.image.name = %q, want %q (ctr images import names the image by it)", got, name)
	}
	var man ociManifest
	if err := json.Unmarshal(blob(t, layout, idx.Manifests[0].Digest), &man); err != nil {
		t.Fatal(err)
	}
	if man.MediaType != "application/vnd.oci.image.manifest.v1+json" {
		t.Errorf("manifest media type %q, want the OCI one", man.MediaType)
	}
	var cfg ociConfig
	if err := json.Unmarshal(blob(t, layout, man.Config.Digest), &cfg); err != nil {
		t.Fatal(err)
	}

	df := parseDockerfile(t, filepath.Join(root, "Dockerfile"))

	// base: scratch means the image holds nothing but what the final stage copies.
	if df.base != "scratch" {
		t.Fatalf("the Dockerfile's final stage is FROM %s; this test (and make image) assume scratch", df.base)
	}
	if len(man.Layers) != 1 {
		t.Fatalf("%d layers, want 1 (scratch plus the COPYs)", len(man.Layers))
	}
	zr, err := gzip.NewReader(bytes.NewReader(blob(t, layout, man.Layers[0].Digest)))
	if err != nil {
		t.Fatalf("layer: %v", err)
	}
	modes := map[string]int64{}
	files := readTar(t, zr, modes)
	var got, want []string
	for f := range files {
		got = append(got, "/"+f)
	}
	want = append(want, df.copies...)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("image files %v, want the Dockerfile's final-stage COPY destinations %v", got, want)
	}
	for path, content := range df.written {
		if f, ok := files[strings.TrimPrefix(path, "/")]; ok && string(f) != content {
			t.Errorf("%s = %q, want the Dockerfile's %q", path, f, content)
		}
	}

	if cfg.Config.User != df.user {
		t.Errorf("User %q, want the Dockerfile's %q", cfg.Config.User, df.user)
	}
	if !slices.Equal(cfg.Config.Entrypoint, df.entrypoint) {
		t.Errorf("Entrypoint %q, want the Dockerfile's %q", cfg.Config.Entrypoint, df.entrypoint)
	}
	if !slices.Equal(cfg.Config.Cmd, df.cmd) {
		t.Errorf("Cmd %q, want the Dockerfile's %q", cfg.Config.Cmd, df.cmd)
	}
	var ports []string
	for p := range cfg.Config.ExposedPorts {
		ports = append(ports, p)
	}
	sort.Strings(ports)
	sort.Strings(df.ports)
	if !slices.Equal(ports, df.ports) {
		t.Errorf("ExposedPorts %v, want the Dockerfile's %v", ports, df.ports)
	}
	if cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s, want linux/%s", cfg.OS, cfg.Architecture, runtime.GOARCH)
	}

	// The entrypoint and every other executable (the kubectl plugin the
	// audit CronJob runs) are static (CGO_ENABLED=0, as the Dockerfile
	// builds them): on scratch there is no dynamic loader.
	if _, ok := files[strings.TrimPrefix(df.entrypoint[0], "/")]; !ok {
		t.Fatalf("entrypoint %s is not in the image", df.entrypoint[0])
	}
	executables := 0
	for path, bin := range files {
		if !bytes.HasPrefix(bin, []byte(elf.ELFMAG)) {
			continue
		}
		executables++
		if m := modes[path]; m&0o001 == 0 {
			t.Errorf("/%s mode %o: not executable by the image's non-root user", path, m)
		}
		ef, err := elf.NewFile(bytes.NewReader(bin))
		if err != nil {
			t.Fatalf("/%s: %v", path, err)
		}
		for _, p := range ef.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("/%s is dynamically linked; scratch has no loader", path)
			}
		}
	}
	if _, ok := files["kubectl-listenerset"]; !ok {
		t.Errorf("/kubectl-listenerset is not in the image: the chart's audit CronJob runs it")
	}
	// The license the binaries are distributed under, the repository's own.
	if license, err := os.ReadFile(filepath.Join(root, "LICENSE")); err != nil {
		t.Fatal(err)
	} else if !bytes.Equal(files["LICENSE"], license) {
		t.Errorf("/LICENSE is not the repository's LICENSE (%d bytes in the image)", len(files["LICENSE"]))
	}
	if executables < 2 {
		t.Errorf("%d executables, want the server and the plugin", executables)
	}
	fmt.Fprintf(os.Stderr, "image: %d bytes, config %s\n", len(raw), man.Config.Digest)
}
