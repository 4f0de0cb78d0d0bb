package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// layout is an OCI layout's files: index.json naming an image index of one
// linux/arm64 image whose layer holds its entrypoint /bin/x with content and
// a second binary /bin/y with "the other binary".
func layout(t *testing.T, content string) (map[string][]byte, string) {
	t.Helper()
	files := map[string][]byte{}
	add := func(b []byte) string {
		sum := sha256.Sum256(b)
		files["blobs/sha256/"+hex.EncodeToString(sum[:])] = b
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	var layer bytes.Buffer
	zw := gzip.NewWriter(&layer)
	tw := tar.NewWriter(zw)
	for name, c := range map[string]string{"bin/x": content, "bin/y": "the other binary"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o755, Size: int64(len(c))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	config := add([]byte(`{"config":{"Entrypoint":["/bin/x"]}}`))
	manifest := add(fmt.Appendf(nil, `{"config":{"digest":%q},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":%q}]}`, config, add(layer.Bytes())))
	index := add(fmt.Appendf(nil, `{"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":%q,"platform":{"os":"linux","architecture":"arm64"}}]}`, manifest))
	files["index.json"] = fmt.Appendf(nil, `{"manifests":[{"mediaType":"application/vnd.oci.image.index.v1+json","digest":%q}]}`, index)
	return files, manifest
}

// binarySBOM is the shape of cyclonedx-gomod's SBOM of a binary of
// linux/arch (its main component has no hash, as for an unpublished module)
// that links lib and, when more is set, lib2 too.
func binarySBOM(arch string, more bool) []byte {
	// With lib2, lib's own entry depends on it too: what each build
	// records of one module, to be joined.
	components, deps, libDeps := `{"bom-ref":"pkg:golang/lib@v2","type":"library"}`, `"pkg:golang/lib@v2"`, ``
	if more {
		components += `,{"bom-ref":"pkg:golang/lib2@v3","type":"library"}`
		deps += `,"pkg:golang/lib2@v3"`
		libDeps = `"pkg:golang/lib2@v3"`
	}
	return fmt.Appendf(nil, `{"bomFormat":"CycloneDX","metadata":{"component":{"bom-ref":"pkg:golang/x@v1","type":"application",
"purl":"pkg:golang/x@v1?goarch=%s&goos=linux&type=module"}},"components":[%s],
"dependencies":[{"ref":"pkg:golang/x@v1","dependsOn":[%s]},{"ref":"pkg:golang/lib@v2","dependsOn":[%s]}]}`, arch, components, deps, libDeps)
}

func TestImageBOM(t *testing.T) {
	files, manifestDigest := layout(t, "the arm64 binary")
	manifest, err := platformManifest(files, "linux", "arm64")
	if err != nil {
		t.Fatal(err)
	}
	if manifest.Digest != manifestDigest {
		t.Fatalf("platformManifest found %s, want %s", manifest.Digest, manifestDigest)
	}
	if _, err := platformManifest(files, "linux", "amd64"); err == nil {
		t.Error("platformManifest found a linux/amd64 manifest the image does not have")
	}

	// The entrypoint, and /bin/y: one main module, two builds.
	out, err := imageBOM(files, manifest, []sbomOf{{raw: binarySBOM("arm64", false)}, {file: "/bin/y", raw: binarySBOM("arm64", true)}},
		"x", "v1.2.3", "linux", "arm64")
	if err != nil {
		t.Fatal(err)
	}
	var bom struct {
		Metadata struct {
			Component struct {
				Type, Name, Version, Purl string
				Ref                       string `json:"bom-ref"`
			}
		}
		Components []struct {
			Ref    string `json:"bom-ref"`
			Hashes []struct{ Alg, Content string }
		}
		Dependencies []struct {
			Ref       string
			DependsOn []string
		}
	}
	if err := json.Unmarshal(out, &bom); err != nil {
		t.Fatal(err)
	}
	image := bom.Metadata.Component
	wantPurl := "pkg:oci/x@" + strings.Replace(manifestDigest, ":", "%3A", 1) + "?arch=arm64&os=linux&tag=v1.2.3"
	if image.Type != "container" || image.Name != "x" || image.Version != "v1.2.3" || image.Purl != wantPurl || image.Ref != wantPurl {
		t.Errorf("metadata.component = %+v, want the container x v1.2.3, purl %s", image, wantPurl)
	}
	var refs []string
	for _, c := range bom.Components {
		refs = append(refs, c.Ref)
	}
	if want := "pkg:golang/x@v1 pkg:golang/x@v1#/bin/y pkg:golang/lib@v2 pkg:golang/lib2@v3"; strings.Join(refs, " ") != want {
		t.Fatalf("components %v, want the binaries (the second of one bom-ref by its file), then their modules once each: %s", refs, want)
	}
	for i, content := range []string{"the arm64 binary", "the other binary"} {
		sum := sha256.Sum256([]byte(content))
		if h := bom.Components[i].Hashes; len(h) != 1 || h[0].Alg != "SHA-256" || h[0].Content != hex.EncodeToString(sum[:]) {
			t.Errorf("%s's hashes %+v, want the SHA-256 of its file in the image", refs[i], h)
		}
	}
	var deps []string
	for _, d := range bom.Dependencies {
		deps = append(deps, d.Ref+" -> "+strings.Join(d.DependsOn, ","))
	}
	if want := []string{wantPurl + " -> pkg:golang/x@v1,pkg:golang/x@v1#/bin/y",
		"pkg:golang/x@v1 -> pkg:golang/lib@v2", "pkg:golang/lib@v2 -> pkg:golang/lib2@v3",
		"pkg:golang/x@v1#/bin/y -> pkg:golang/lib@v2,pkg:golang/lib2@v3"}; strings.Join(deps, "\n") != strings.Join(want, "\n") {
		t.Errorf("dependencies\n%s\nwant the image on each binary, then each binary's\n%s", strings.Join(deps, "\n"), strings.Join(want, "\n"))
	}

	if _, err := imageBOM(files, manifest, []sbomOf{{file: "/bin/y", raw: binarySBOM("arm64", false)}}, "x", "v1.2.3", "linux", "arm64"); err == nil ||
		!strings.Contains(err.Error(), "no SBOM describes the image's entrypoint /bin/x") {
		t.Errorf("an SBOM of /bin/y alone: err = %v, want that none describes the entrypoint", err)
	}
	if _, err := imageBOM(files, manifest, []sbomOf{{raw: binarySBOM("arm64", false)}, {file: "/bin/z", raw: binarySBOM("arm64", false)}}, "x", "v1.2.3", "linux", "arm64"); err == nil ||
		!strings.Contains(err.Error(), "/bin/z is not in the image") {
		t.Errorf("an SBOM of a file the image lacks: err = %v, want that it is not in the image", err)
	}
	if _, err := imageBOM(files, manifest, []sbomOf{{raw: binarySBOM("amd64", false)}}, "x", "v1.2.3", "linux", "arm64"); err == nil ||
		!strings.Contains(err.Error(), "is not of linux/arm64") {
		t.Errorf("an SBOM of the amd64 binary: err = %v, want that it is not of linux/arm64", err)
	}
}
