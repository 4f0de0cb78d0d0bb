// Command ociimage builds an OCI image tarball (an OCI image layout, tarred)
// from local files, without Docker or a registry: `make image` builds the
// product's image with it, and hack/node the pause image its containerd runs
// pods with. The tarball imports with `ctr -n k8s.io images import`;
// `ociimage push` copies it to a registry (push.go, make publish).
//
// The image is one layer on an empty base (the Dockerfile's `FROM scratch`),
// with every entry owned by root and dated SOURCE_DATE_EPOCH (else 1970), so
// that the same inputs give the same digest. test/image compares the
// product's image with the Dockerfile. More than one -platform writes an OCI
// image index of one such image per platform (make release: linux/amd64 and
// linux/arm64), each with its own binary ({arch} in a -file source).
//
//	ociimage -o bin/image/x.tar -name localhost/x:dev \
//	  -platform linux/amd64 -platform linux/arm64 \
//	  -file /x=bin/{os}-{arch}/x -passwd nonroot:65532 -user 65532:65532 \
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
	"strconv"
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
	do := run
	if len(os.Args) > 1 && os.Args[1] == "push" {
		do = func() error { return push(os.Args[2:]) }
	}
	if err := do(); err != nil {
		fmt.Fprintln(os.Stderr, "ociimage:", err)
		os.Exit(1)
	}
}

func run() error {
	var files, entrypoint, cmd, expose, platforms list
	out := flag.String("o", "", "output tarball (OCI image layout)")
	name := flag.String("name", "", "image reference, e.g. localhost/listenerset-webhook:dev")
	user := flag.String("user", "", "config User (uid:gid)")
	passwd := flag.String("passwd", "", "name:uid: write /etc/passwd and /etc/group with that user, as the Dockerfile does")
	flag.Var(&platforms, "platform", "os/arch of the image (repeatable: more than one writes an image index of one "+
		"image per platform; default: this machine's)")
	flag.Var(&files, "file", "dest=src: copy src into the image at dest (repeatable; mode kept); {os} and {arch} in "+
		"src stand for the platform's")
	flag.Var(&entrypoint, "entrypoint", "an Entrypoint element (repeatable)")
	flag.Var(&cmd, "cmd", "a Cmd element (repeatable)")
	flag.Var(&expose, "expose", "an exposed port, e.g. 9443/tcp (repeatable)")
	index := flag.Bool("index", false, "write an image index also for one platform (make release: a release is always an index)")
	flag.Parse()
	if *out == "" || *name == "" {
		return errors.New("-o and -name are required")
	}
	if len(platforms) == 0 {
		platforms = list{runtime.GOOS + "/" + runtime.GOARCH}
	}
	created, err := sourceDate()
	if err != nil {
		return err
	}
	spec := imageSpec{files: files, passwd: *passwd, user: *user, entrypoint: entrypoint, cmd: cmd, expose: expose, created: created}

	// containerd names the imported image by io.containerd.image.name (the
	// full reference); other tools read the OCI ref.name (the tag).
	tag := *name
	if i := strings.LastIndex(tag, ":"); i > strings.LastIndex(tag, "/") {
		tag = tag[i+1:]
	}
	add := layout.WithAnnotations(map[string]string{
		"io.containerd.image.name":          *name,
		"org.opencontainers.image.ref.name": tag,
	})
	// One platform: the layout names the image itself, which every
	// importer takes. More, or -index: it names an image index of them.
	var digest v1.Hash
	var appendTo func(layout.Path) error
	if len(platforms) == 1 && !*index {
		img, err := spec.image(platforms[0])
		if err != nil {
			return err
		}
		if digest, err = img.Digest(); err != nil {
			return err
		}
		appendTo = func(lp layout.Path) error { return lp.AppendImage(img, add) }
	} else {
		idx := v1.ImageIndex(empty.Index)
		for _, p := range platforms {
			img, err := spec.image(p)
			if err != nil {
				return err
			}
			goos, arch, _ := strings.Cut(p, "/")
			idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
				Add:        img,
				Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: goos, Architecture: arch}},
			})
		}
		if digest, err = idx.Digest(); err != nil {
			return err
		}
		appendTo = func(lp layout.Path) error { return lp.AppendIndex(idx, add) }
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
	if err := appendTo(lp); err != nil {
		return err
	}
	tmp := *out + ".tmp"
	if err := tarDir(dir, tmp, created); err != nil {
		return err
	}
	if err := os.Rename(tmp, *out); err != nil {
		return err
	}
	fmt.Printf("%s %s %s\n", *out, *name, digest)
	return nil
}

// sourceDate is the time every entry and the config carry:
// SOURCE_DATE_EPOCH (seconds, the reproducible-builds convention; make
// release sets the commit's time), else 1970.
func sourceDate() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	sec, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %v", v, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// imageSpec is what the images of every platform share.
type imageSpec struct {
	files, entrypoint, cmd, expose []string
	passwd, user                   string
	created                        time.Time
}

// image builds the image of one platform, "os/arch".
func (s imageSpec) image(platform string) (v1.Image, error) {
	goos, arch, ok := strings.Cut(platform, "/")
	if !ok || goos == "" || arch == "" {
		return nil, fmt.Errorf("-platform %q: want os/arch", platform)
	}
	entries := map[string]entry{}
	var dests []string
	for _, f := range s.files {
		dst, src, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("-file %q: want dest=src", f)
		}
		src = strings.NewReplacer("{os}", goos, "{arch}", arch).Replace(src)
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(src)
		if err != nil {
			return nil, err
		}
		dst = path.Clean("/" + dst)
		entries[dst] = entry{data: data, mode: int64(st.Mode().Perm())}
		dests = append(dests, dst)
	}
	if s.passwd != "" {
		user, uid, ok := strings.Cut(s.passwd, ":")
		if !ok {
			return nil, fmt.Errorf("-passwd %q: want name:uid", s.passwd)
		}
		entries["/etc/passwd"] = entry{data: fmt.Appendf(nil, "%s:x:%s:%s:%s:/home/%s:/sbin/nologin\n", user, uid, uid, user, user), mode: 0o644}
		entries["/etc/group"] = entry{data: fmt.Appendf(nil, "%s:x:%s:\n", user, uid), mode: 0o644}
	}
	layerTar, err := tarOf(entries, s.created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}

	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	// The history names what was copied, not where from: a source path
	// would make the digest depend on the checkout's directory.
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{CreatedBy: "ociimage " + strings.Join(dests, " "), Created: v1.Time{Time: s.created}},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = goos, arch
	cf.Created = v1.Time{Time: s.created}
	cf.Config.User = s.user
	cf.Config.Entrypoint = s.entrypoint
	cf.Config.Cmd = s.cmd
	cf.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	if len(s.expose) > 0 {
		cf.Config.ExposedPorts = map[string]struct{}{}
		for _, p := range s.expose {
			cf.Config.ExposedPorts[p] = struct{}{}
		}
	}
	return mutate.ConfigFile(img, cf)
}

type entry struct {
	data []byte
	mode int64
}

// tarOf writes the files and their parent directories, sorted, root-owned
// and dated date.
func tarOf(entries map[string]entry, date time.Time) ([]byte, error) {
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
	for _, n := range names {
		rel := strings.TrimPrefix(n, "/")
		if dirs[n] {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: rel + "/", Mode: 0o755, ModTime: date, Format: tar.FormatPAX}); err != nil {
				return nil, err
			}
			continue
		}
		e := entries[n]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: e.mode, Size: int64(len(e.data)), ModTime: date, Format: tar.FormatPAX}); err != nil {
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

// tarDir tars the OCI layout dir (index.json, oci-layout, blobs/) into out,
// every entry dated date.
func tarDir(dir, out string, date time.Time) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: rel + "/", Mode: 0o755, ModTime: date})
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: 0o644, Size: int64(len(data)), ModTime: date}); err != nil {
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
