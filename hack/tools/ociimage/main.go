// Command ociimage builds an OCI image tarball (an OCI image layout, tarred)
// from local files, without Docker or a registry: `make image` builds the
// product's image with it, and hack/node the pause image its containerd runs
// pods with. The tarball imports with `ctr -n k8s.io images import`.
//
// The image is one layer on an empty base (the Dockerfile's `FROM scratch`),
// with every entry owned by root and dated 1970, so that the same inputs give
// the same digest. test/image compares the product's image with the Dockerfile.
//
//	ociimage -o bin/image/x.tar -name docker.io/library/x:dev \
//	  -file /x=bin/x -passwd nonroot:65532 -user 65532:65532 \
//	  -entrypoint /x -cmd serve -expose 9443/tcp
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ociimage:", err)
		os.Exit(1)
	}
}

func run() error {
	var files, entrypoint, cmd, expose list
	out := flag.String("o", "", "output tarball (OCI image layout)")
	name := flag.String("name", "", "image reference, e.g. docker.io/library/listenerset-webhook:dev")
	user := flag.String("user", "", "config User (uid:gid)")
	passwd := flag.String("passwd", "", "name:uid: write /etc/passwd and /etc/group with that user, as the Dockerfile does")
	platform := flag.String("platform", runtime.GOOS+"/"+runtime.GOARCH, "os/arch of the image")
	flag.Var(&files, "file", "dest=src: copy src into the image at dest (repeatable; mode kept)")
	flag.Var(&entrypoint, "entrypoint", "an Entrypoint element (repeatable)")
	flag.Var(&cmd, "cmd", "a Cmd element (repeatable)")
	flag.Var(&expose, "expose", "an exposed port, e.g. 9443/tcp (repeatable)")
	flag.Parse()
	if *out == "" || *name == "" {
		return errors.New("-o and -name are required")
	}
	osArch := strings.SplitN(*platform, "/", 2)
	if len(osArch) != 2 {
		return fmt.Errorf("-platform %q: want os/arch", *platform)
	}

	entries := map[string]entry{}
	for _, f := range files {
		dst, src, ok := strings.Cut(f, "=")
		if !ok {
			return fmt.Errorf("-file %q: want dest=src", f)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		st, err := os.Stat(src)
		if err != nil {
			return err
		}
		entries[path.Clean("/"+dst)] = entry{data: data, mode: int64(st.Mode().Perm())}
	}
	if *passwd != "" {
		user, uid, ok := strings.Cut(*passwd, ":")
		if !ok {
			return fmt.Errorf("-passwd %q: want name:uid", *passwd)
		}
		entries["/etc/passwd"] = entry{data: fmt.Appendf(nil, "%s:x:%s:%s:%s:/home/%s:/sbin/nologin\n", user, uid, uid, user, user), mode: 0o644}
		entries["/etc/group"] = entry{data: fmt.Appendf(nil, "%s:x:%s:\n", user, uid), mode: 0o644}
	}
	layerTar, err := tarOf(entries)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return err
	}

	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{CreatedBy: "ociimage " + strings.Join(os.Args[1:], " "), Created: v1.Time{Time: time.Unix(0, 0).UTC()}},
	})
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = osArch[0], osArch[1]
	cf.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cf.Config.User = *user
	cf.Config.Entrypoint = entrypoint
	cf.Config.Cmd = cmd
	cf.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	if len(expose) > 0 {
		cf.Config.ExposedPorts = map[string]struct{}{}
		for _, p := range expose {
			cf.Config.ExposedPorts[p] = struct{}{}
		}
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return err
	}

	dir, err := os.MkdirTemp(filepath.Dir(*out), ".ociimage-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	// containerd names the imported image by io.containerd.image.name (the
	// full reference); other tools read the OCI ref.name (the tag).
	tag := *name
	if i := strings.LastIndex(tag, ":"); i > strings.LastIndex(tag, "/") {
		tag = tag[i+1:]
	}
	if err := lp.AppendImage(img, layout.WithAnnotations(map[string]string{
		"io.containerd.image.name":          *name,
		"org.opencontainers.image.ref.name": tag,
	})); err != nil {
		return err
	}
	tmp := *out + ".tmp"
	if err := tarDir(dir, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, *out); err != nil {
		return err
	}
	digest, _ := img.Digest()
	fmt.Printf("%s %s %s\n", *out, *name, digest)
	return nil
}

type entry struct {
	data []byte
	mode int64
}

// tarOf writes the files and their parent directories, sorted, root-owned
// and dated 1970.
func tarOf(entries map[string]entry) ([]byte, error) {
	dirs := map[string]bool{}
	var names []string
	for p := range entries {
		names = append(names, p)
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for d := range dirs {
		names = append(names, d)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0).UTC()
	for _, n := range names {
		rel := strings.TrimPrefix(n, "/")
		if dirs[n] {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: rel + "/", Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
				return nil, err
			}
			continue
		}
		e := entries[n]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: e.mode, Size: int64(len(e.data)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tarDir tars the OCI layout dir (index.json, oci-layout, blobs/) into out.
func tarDir(dir, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	epoch := time.Unix(0, 0).UTC()
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: rel + "/", Mode: 0o755, ModTime: epoch})
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: 0o644, Size: int64(len(data)), ModTime: epoch}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
