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
// linux/arm64 image whose layer holds its entrypoint /bin/x with content.
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
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/x", Mode: 0o755, Size: int64(len(content))}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte(content)); err != nil {
		t.Fatal(err)
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
// linux/arch (its main component has no hash, as for an unpublished module).
func binarySBOM(arch string) []byte {
	return fmt.Appendf(nil, `{"bomFormat":"CycloneDX","metadata":{"component":{"bom-ref":"pkg:golang/x@v1","type":"application",
"purl":"pkg:golang/x@v1?goarch=%s&goos=linux&type=module"}},"components":[{"bom-ref":"pkg:golang/lib@v2","type":"library"}],
"dependencies":[{"ref":"pkg:golang/x@v1","dependsOn":["pkg:golang/lib@v2"]}]}`, arch)
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

	out, err := imageBOM(files, manifest, binarySBOM("arm64"), "x", "v1.2.3", "linux", "arm64")
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
	if len(bom.Components) != 2 || bom.Components[0].Ref != "pkg:golang/x@v1" || bom.Components[1].Ref != "pkg:golang/lib@v2" {
		t.Fatalf("components %+v, want the binary, then its modules", bom.Components)
	}
	sum := sha256.Sum256([]byte("the arm64 binary"))
	if h := bom.Components[0].Hashes; len(h) != 1 || h[0].Alg != "SHA-256" || h[0].Content != hex.EncodeToString(sum[:]) {
		t.Errorf("the binary's hashes %+v, want the SHA-256 of the image's entrypoint", h)
	}
	if len(bom.Dependencies) != 2 || bom.Dependencies[0].Ref != wantPurl || strings.Join(bom.Dependencies[0].DependsOn, ",") != "pkg:golang/x@v1" {
		t.Errorf("dependencies %+v, want the image on the binary, then the binary's", bom.Dependencies)
	}

	if _, err := imageBOM(files, manifest, binarySBOM("amd64"), "x", "v1.2.3", "linux", "arm64"); err == nil ||
		!strings.Contains(err.Error(), "is not of linux/arm64") {
		t.Errorf("an SBOM of the amd64 binary: err = %v, want that it is not of linux/arm64", err)
	}
}
