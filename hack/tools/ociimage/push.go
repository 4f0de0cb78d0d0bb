package main

import (
	"archive/tar"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// push copies the one image or image index of an OCI tarball to a registry
// as it is, every manifest and blob byte for byte, so that its digest there
// is the tarball's (make publish pushes the release's image with it). It
// tags the reference's tag and prints reference@digest once the registry
// answers with that digest. Credentials are the Docker config's, as crane's
// and cosign's are.
//
//	ociimage push [-ca-file ca.crt] dist/x-v1.2.3.oci.tar registry.example.internal/x:v1.2.3
func push(args []string) error {
	fs := flag.NewFlagSet("ociimage push", flag.ContinueOnError)
	caFile := fs.String("ca-file", "", "PEM bundle of the CAs the registry's certificate is verified against "+
		"(default: the system's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("usage: ociimage push [-ca-file FILE] TARBALL REGISTRY/REPOSITORY:TAG")
	}
	ref, err := name.NewTag(fs.Arg(1), name.StrictValidation)
	if err != nil {
		return fmt.Errorf("%s: want registry/repository:tag: %w", fs.Arg(1), err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			return err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s: no PEM certificate", *caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	opts := []remote.Option{remote.WithTransport(tr), remote.WithAuthFromKeychain(authn.DefaultKeychain),
		remote.WithUserAgent("ociimage")}

	dir, err := os.MkdirTemp("", "ociimage-push-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := untar(fs.Arg(0), dir); err != nil {
		return err
	}
	lp, err := layout.FromPath(dir)
	if err != nil {
		return err
	}
	top, err := lp.ImageIndex()
	if err != nil {
		return err
	}
	m, err := top.IndexManifest()
	if err != nil {
		return err
	}
	if len(m.Manifests) != 1 {
		return fmt.Errorf("%s: %d entries in its index.json, want the one image or image index ociimage writes", fs.Arg(0), len(m.Manifests))
	}
	desc := m.Manifests[0]
	switch {
	case desc.MediaType.IsIndex():
		idx, err := top.ImageIndex(desc.Digest)
		if err != nil {
			return err
		}
		err = remote.WriteIndex(ref, idx, opts...)
		if err != nil {
			return err
		}
	case desc.MediaType.IsImage():
		img, err := top.Image(desc.Digest)
		if err != nil {
			return err
		}
		if err := remote.Write(ref, img, opts...); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: its entry is a %s, not an image or image index", fs.Arg(0), desc.MediaType)
	}
	got, err := remote.Head(ref, opts...)
	if err != nil {
		return err
	}
	if got.Digest != desc.Digest {
		return fmt.Errorf("%s answers %s after the push, not the tarball's %s", ref, got.Digest, desc.Digest)
	}
	fmt.Printf("%s@%s\n", ref.Context().Name(), desc.Digest)
	return nil
}

// untar extracts an OCI layout tarball's regular files and directories into
// dir; any other entry, or a name that leaves dir, is refused.
func untar(tarball, dir string) error {
	f, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tarball, err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if p != dir && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return fmt.Errorf("%s: entry %q leaves the layout", tarball, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: entry %q is not a file or directory", tarball, h.Name)
		}
	}
}
