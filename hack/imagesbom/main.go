// Command imagesbom writes the CycloneDX SBOM of each platform's image in an
// OCI image tarball (ociimage's output) from the SBOMs of the binaries that
// image holds: make release runs it on the release image.
//
//	imagesbom -name listenerset-webhook -version v1.2.3 \
//	  -sbom linux/amd64:/listenerset-webhook=server.amd64.cdx.json \
//	  -sbom linux/amd64:/kubectl-listenerset=plugin.amd64.cdx.json ... \
//	  -o 'dist/listenerset-webhook-v1.2.3-{os}-{arch}.image.cdx.json' image.tar
//
// The image is its binaries on an empty base (the Dockerfile's FROM scratch)
// plus /etc/passwd and /etc/group, so its components are the binaries', from
// the Go module graphs cyclonedx-gomod read, under one more: the image,
// named by its manifest's digest, which depends on each binary. Each binary
// gets the SHA-256 of its file in the image and keeps its bom-ref
// (cyclonedx-gomod's names the main package, ...#cmd/x), or, where another
// binary has it, that with "#" and the file's path; the modules both link
// are listed once. A binary's SBOM must be of that image's platform, and one of
// them must describe the image's entrypoint. "-sbom os/arch=path" (no file)
// stands for the entrypoint.
package main

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	var sboms list
	name := flag.String("name", "", "the image's name, without registry or tag")
	version := flag.String("version", "", "the image's version (its tag)")
	out := flag.String("o", "", "output path; {os} and {arch} stand for the platform's")
	flag.Var(&sboms, "sbom", "os/arch:/file=path: the CycloneDX JSON SBOM of that platform's binary /file (os/arch=path: its entrypoint; repeatable)")
	flag.Parse()
	if *name == "" || *version == "" || *out == "" || len(sboms) == 0 || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: imagesbom -name N -version V -o PATH -sbom os/arch[:/file]=path... IMAGE.tar")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *name, *version, *out, sboms); err != nil {
		fmt.Fprintln(os.Stderr, "imagesbom:", err)
		os.Exit(1)
	}
}

func run(image, name, version, out string, sboms []string) error {
	files, err := readTar(image)
	if err != nil {
		return err
	}
	byPlatform := map[string][]sbomOf{}
	var platforms []string
	for _, s := range sboms {
		spec, path, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("-sbom %q: want os/arch[:/file]=path", s)
		}
		platform, file, _ := strings.Cut(spec, ":")
		if _, seen := byPlatform[platform]; !seen {
			platforms = append(platforms, platform)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		byPlatform[platform] = append(byPlatform[platform], sbomOf{file: file, raw: raw, source: path})
	}
	for _, platform := range platforms {
		goos, arch, _ := strings.Cut(platform, "/")
		manifest, err := platformManifest(files, goos, arch)
		if err != nil {
			return err
		}
		bom, err := imageBOM(files, manifest, byPlatform[platform], name, version, goos, arch)
		if err != nil {
			return fmt.Errorf("%s: %w", platform, err)
		}
		dst := strings.NewReplacer("{os}", goos, "{arch}", arch).Replace(out)
		if err := os.WriteFile(dst, bom, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sbomOf is a binary's SBOM (raw, read from source) and its file in the
// image ("" for the entrypoint).
type sbomOf struct {
	file, source string
	raw          []byte
}

// descriptor is an OCI content descriptor.
type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Platform  *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	} `json:"platform,omitempty"`
}

// readTar returns the regular files of the OCI layout tarball by name.
func readTar(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	files := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag == tar.TypeReg {
			if files[h.Name], err = io.ReadAll(tr); err != nil {
				return nil, err
			}
		}
	}
}

func blob(files map[string][]byte, digest string) ([]byte, error) {
	algo, hexDigest, _ := strings.Cut(digest, ":")
	b, ok := files["blobs/"+algo+"/"+hexDigest]
	if !ok {
		return nil, fmt.Errorf("blob %s missing from the OCI layout", digest)
	}
	return b, nil
}

// platformManifest finds the manifest of goos/arch under index.json, through
// one image index (a multi-platform image) or none.
func platformManifest(files map[string][]byte, goos, arch string) (descriptor, error) {
	var top struct{ Manifests []descriptor }
	if err := json.Unmarshal(files["index.json"], &top); err != nil {
		return descriptor{}, fmt.Errorf("index.json: %w", err)
	}
	manifests := top.Manifests
	if len(manifests) == 1 && manifests[0].MediaType == "application/vnd.oci.image.index.v1+json" {
		raw, err := blob(files, manifests[0].Digest)
		if err != nil {
			return descriptor{}, err
		}
		var idx struct{ Manifests []descriptor }
		if err := json.Unmarshal(raw, &idx); err != nil {
			return descriptor{}, err
		}
		manifests = idx.Manifests
	}
	for _, m := range manifests {
		if m.Platform != nil && m.Platform.OS == goos && m.Platform.Architecture == arch {
			return m, nil
		}
	}
	return descriptor{}, fmt.Errorf("the image has no %s/%s manifest", goos, arch)
}

// imageBOM is the binaries' SBOMs under the image's component.
func imageBOM(files map[string][]byte, manifest descriptor, sboms []sbomOf, name, version, goos, arch string) ([]byte, error) {
	contents, entrypoint, err := imageFiles(files, manifest)
	if err != nil {
		return nil, err
	}
	// purl's OCI type: the name, the manifest digest as its version, the
	// tag and platform as qualifiers; no repository_url, as a release
	// names no registry.
	purl := fmt.Sprintf("pkg:oci/%s@%s?arch=%s&os=%s&tag=%s", name, url.QueryEscape(manifest.Digest), arch, goos, url.QueryEscape(version))
	var out map[string]any
	var binaries, components, deps []any
	var binaryRefs []any
	seenBinary, seenComponent, seenDep := map[string]bool{}, map[string]bool{}, map[string]map[string]any{}
	describesEntrypoint := false
	for _, s := range sboms {
		var bom map[string]any
		if err := json.Unmarshal(s.raw, &bom); err != nil {
			return nil, fmt.Errorf("%s: %w", s.source, err)
		}
		meta, _ := bom["metadata"].(map[string]any)
		bin, _ := meta["component"].(map[string]any)
		moduleRef, _ := bin["bom-ref"].(string)
		if moduleRef == "" {
			return nil, fmt.Errorf("%s: no metadata.component with a bom-ref: not a cyclonedx-gomod SBOM of a binary", s.source)
		}
		if err := ofPlatform(bin, goos, arch); err != nil {
			return nil, fmt.Errorf("%s: %w", s.source, err)
		}
		file := cmp.Or(s.file, entrypoint)
		describesEntrypoint = describesEntrypoint || file == entrypoint
		sum, ok := contents[file]
		if !ok {
			return nil, fmt.Errorf("%s: %s is not in the image", s.source, file)
		}
		// cyclonedx-gomod's bom-ref of a binary names its package
		// (...?type=module#cmd/x); one that another binary has already
		// taken gets its file too.
		ref := moduleRef
		if seenBinary[ref] {
			ref += "#" + file
		}
		seenBinary[ref] = true
		bin["bom-ref"] = ref
		bin["hashes"] = []any{map[string]any{"alg": "SHA-256", "content": sum}}
		binaries = append(binaries, bin)
		binaryRefs = append(binaryRefs, ref)
		if out == nil {
			out = bom // the first SBOM's header (format, spec version, tools)
		}
		list, _ := bom["components"].([]any)
		for _, c := range list {
			r, _ := c.(map[string]any)["bom-ref"].(string)
			if !seenComponent[r] {
				seenComponent[r] = true
				components = append(components, c)
			}
		}
		list, _ = bom["dependencies"].([]any)
		for _, d := range list {
			dep, _ := d.(map[string]any)
			r, _ := dep["ref"].(string)
			if r == moduleRef {
				dep["ref"] = ref
				r = ref
			}
			if prev, ok := seenDep[r]; ok {
				prev["dependsOn"] = union(prev["dependsOn"], dep["dependsOn"])
				continue
			}
			seenDep[r] = dep
			deps = append(deps, dep)
		}
	}
	if !describesEntrypoint {
		return nil, fmt.Errorf("no SBOM describes the image's entrypoint %s", entrypoint)
	}
	meta, _ := out["metadata"].(map[string]any)
	meta["component"] = map[string]any{
		"bom-ref": purl,
		"type":    "container",
		"name":    name,
		"version": version,
		"purl":    purl,
		"hashes":  []any{map[string]any{"alg": "SHA-256", "content": strings.TrimPrefix(manifest.Digest, "sha256:")}},
	}
	out["components"] = append(binaries, components...)
	out["dependencies"] = append([]any{map[string]any{"ref": purl, "dependsOn": binaryRefs}}, deps...)
	b, err := json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), err
}

// union is a's items, then b's not in a: two binaries' lists of what one
// module depends on.
func union(a, b any) any {
	as, _ := a.([]any)
	bs, _ := b.([]any)
	seen := map[any]bool{}
	for _, x := range as {
		seen[x] = true
	}
	for _, x := range bs {
		if !seen[x] {
			seen[x] = true
			as = append(as, x)
		}
	}
	return as
}

// ofPlatform checks that the SBOM's binary is of the image's platform (its
// purl's goos and goarch).
func ofPlatform(binary map[string]any, goos, arch string) error {
	purl, _ := binary["purl"].(string)
	if _, q, _ := strings.Cut(purl, "?"); !strings.Contains("&"+q, "&goos="+goos+"&") || !strings.Contains("&"+q, "&goarch="+arch+"&") {
		return fmt.Errorf("its binary %s is not of %s/%s", purl, goos, arch)
	}
	return nil
}

// imageFiles are the SHA-256 of every regular file of the image's layers,
// by absolute path, and its entrypoint: what each binary's hash is taken
// from (cyclonedx-gomod hashes a main module only when the module proxy
// knows it).
func imageFiles(files map[string][]byte, manifest descriptor) (map[string]string, string, error) {
	raw, err := blob(files, manifest.Digest)
	if err != nil {
		return nil, "", err
	}
	var m struct {
		Config descriptor
		Layers []descriptor
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, "", err
	}
	if raw, err = blob(files, m.Config.Digest); err != nil {
		return nil, "", err
	}
	var cfg struct{ Config struct{ Entrypoint []string } }
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, "", err
	}
	if len(cfg.Config.Entrypoint) == 0 {
		return nil, "", errors.New("the image has no entrypoint")
	}
	sums := map[string]string{}
	for _, l := range m.Layers {
		layer, err := blob(files, l.Digest)
		if err != nil {
			return nil, "", err
		}
		zr, err := gzip.NewReader(bytes.NewReader(layer))
		if err != nil {
			return nil, "", err
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, "", err
			}
			if h.Typeflag != tar.TypeReg {
				continue
			}
			sum := sha256.New()
			if _, err := io.Copy(sum, tr); err != nil {
				return nil, "", err
			}
			sums["/"+strings.TrimPrefix(strings.TrimPrefix(h.Name, "./"), "/")] = hex.EncodeToString(sum.Sum(nil))
		}
	}
	return sums, cfg.Config.Entrypoint[0], nil
}
