// Command imagesbom writes the CycloneDX SBOM of each platform's image in an
// OCI image tarball (ociimage's output) from the SBOM of the binary that
// image holds: make release runs it on the release image.
//
//	imagesbom -name listenerset-webhook -version v1.2.3 \
//	  -sbom linux/amd64=bin.amd64.cdx.json -sbom linux/arm64=bin.arm64.cdx.json \
//	  -o 'dist/listenerset-webhook-v1.2.3-{os}-{arch}.image.cdx.json' image.tar
//
// The image is the binary on an empty base (the Dockerfile's FROM scratch)
// plus /etc/passwd and /etc/group, so its components are the binary's, from
// the Go module graph cyclonedx-gomod read, under one more: the image,
// named by its manifest's digest, which depends on the binary, which gets
// the SHA-256 of the image's entrypoint. The binary's SBOM must be of that
// image's platform.
package main

import (
	"archive/tar"
	"bytes"
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
	flag.Var(&sboms, "sbom", "os/arch=path: the CycloneDX JSON SBOM of that platform's binary (repeatable)")
	flag.Parse()
	if *name == "" || *version == "" || *out == "" || len(sboms) == 0 || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: imagesbom -name N -version V -o PATH -sbom os/arch=path... IMAGE.tar")
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
	for _, s := range sboms {
		platform, path, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("-sbom %q: want os/arch=path", s)
		}
		goos, arch, _ := strings.Cut(platform, "/")
		manifest, err := platformManifest(files, goos, arch)
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		bom, err := imageBOM(files, manifest, raw, name, version, goos, arch)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		dst := strings.NewReplacer("{os}", goos, "{arch}", arch).Replace(out)
		if err := os.WriteFile(dst, bom, 0o644); err != nil {
			return err
		}
	}
	return nil
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

// imageBOM is the binary's SBOM under the image's component.
func imageBOM(files map[string][]byte, manifest descriptor, binarySBOM []byte, name, version, goos, arch string) ([]byte, error) {
	var bom map[string]any
	if err := json.Unmarshal(binarySBOM, &bom); err != nil {
		return nil, err
	}
	meta, _ := bom["metadata"].(map[string]any)
	binary, _ := meta["component"].(map[string]any)
	binaryRef, _ := binary["bom-ref"].(string)
	if binaryRef == "" {
		return nil, errors.New("no metadata.component with a bom-ref: not a cyclonedx-gomod SBOM of a binary")
	}
	if err := binaryHash(files, manifest, binary, goos, arch); err != nil {
		return nil, err
	}
	// purl's OCI type: the name, the manifest digest as its version, the
	// tag and platform as qualifiers; no repository_url, as a release
	// names no registry.
	purl := fmt.Sprintf("pkg:oci/%s@%s?arch=%s&os=%s&tag=%s", name, url.QueryEscape(manifest.Digest), arch, goos, url.QueryEscape(version))
	image := map[string]any{
		"bom-ref": purl,
		"type":    "container",
		"name":    name,
		"version": version,
		"purl":    purl,
		"hashes":  []any{map[string]any{"alg": "SHA-256", "content": strings.TrimPrefix(manifest.Digest, "sha256:")}},
	}
	meta["component"] = image
	components, _ := bom["components"].([]any)
	bom["components"] = append([]any{binary}, components...)
	deps, _ := bom["dependencies"].([]any)
	bom["dependencies"] = append([]any{map[string]any{"ref": purl, "dependsOn": []any{binaryRef}}}, deps...)
	b, err := json.MarshalIndent(bom, "", "  ")
	return append(b, '\n'), err
}

// binaryHash checks that the SBOM's binary is of the image's platform (its
// purl's goos and goarch) and gives it the SHA-256 of the image's entrypoint,
// the file it describes (cyclonedx-gomod hashes a main module only when the
// module proxy knows it).
func binaryHash(files map[string][]byte, manifest descriptor, binary map[string]any, goos, arch string) error {
	purl, _ := binary["purl"].(string)
	if _, q, _ := strings.Cut(purl, "?"); !strings.Contains("&"+q, "&goos="+goos+"&") || !strings.Contains("&"+q, "&goarch="+arch+"&") {
		return fmt.Errorf("its binary %s is not of %s/%s", purl, goos, arch)
	}
	raw, err := blob(files, manifest.Digest)
	if err != nil {
		return err
	}
	var m struct {
		Config descriptor
		Layers []descriptor
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	if raw, err = blob(files, m.Config.Digest); err != nil {
		return err
	}
	var cfg struct{ Config struct{ Entrypoint []string } }
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return err
	}
	if len(cfg.Config.Entrypoint) == 0 {
		return errors.New("the image has no entrypoint")
	}
	entrypoint := strings.TrimPrefix(cfg.Config.Entrypoint[0], "/")
	for _, l := range m.Layers {
		layer, err := blob(files, l.Digest)
		if err != nil {
			return err
		}
		zr, err := gzip.NewReader(bytes.NewReader(layer))
		if err != nil {
			return err
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if h.Typeflag != tar.TypeReg || strings.TrimPrefix(h.Name, "./") != entrypoint {
				continue
			}
			sum := sha256.New()
			if _, err := io.Copy(sum, tr); err != nil {
				return err
			}
			binary["hashes"] = []any{map[string]any{"alg": "SHA-256", "content": hex.EncodeToString(sum.Sum(nil))}}
			return nil
		}
	}
	return fmt.Errorf("the entrypoint /%s is not in the image", entrypoint)
}
