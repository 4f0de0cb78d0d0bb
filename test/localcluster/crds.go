package localcluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// CRDSet names the Gateway API CRDs a local cluster installs:
// "<version>-<channel>", the directory config/crd/<channel> of the module
// sigs.k8s.io/gateway-api at that version, read straight from the module
// cache (never a copy).
//
// Modules provide versions: the product's go.mod (the version of the Go
// types the webhook is built with) and GatewayAPIToolsModules, which only
// download another one each for its CRD files. Any other version is an error.
type CRDSet string

// The sets of the end-to-end suite's matrix (test/e2e). The empty CRDSet is
// the standard channel of the product's version, CRDsV163Standard today.
const (
	CRDsV151Standard     CRDSet = "v1.5.1-standard"
	CRDsV163Standard     CRDSet = "v1.6.3-standard"
	CRDsV170Standard     CRDSet = "v1.7.0-standard"
	CRDsV170Experimental CRDSet = "v1.7.0-experimental"
)

// GatewayAPIModule is the module whose config/crd directories are installed.
const GatewayAPIModule = "sigs.k8s.io/gateway-api"

// GatewayAPIToolsModule is the tools module, relative to RepoRoot, that
// requires a newer GatewayAPIModule than the product does, for its CRD files
// only: `go mod download` there fetches it without building anything, so its
// go directive (go 1.27.0 for v1.7.0) does not bind the product's Go.
const GatewayAPIToolsModule = "hack/tools/gatewayapi-crds"

// GatewayAPIToolsModules are the tools modules, relative to RepoRoot, each
// requiring one GatewayAPIModule version for its CRD files: v1.7.0
// (GatewayAPIToolsModule) and v1.5.1, the first release with ListenerSet in
// the standard channel.
var GatewayAPIToolsModules = []string{GatewayAPIToolsModule, "hack/tools/gatewayapi-crds-v1.5"}

// listenerSetCRDFile is the file every CRD directory must have.
const listenerSetCRDFile = "gateway.networking.k8s.io_listenersets.yaml"

// Version and Channel split the set's name ("" for either when it is not
// "<version>-<channel>").
func (s CRDSet) Version() string { v, _ := s.split(); return v }

// Channel is "standard" or "experimental" for a well-formed set.
func (s CRDSet) Channel() string { _, c := s.split(); return c }

func (s CRDSet) split() (version, channel string) {
	i := strings.LastIndexByte(string(s), '-')
	if i <= 0 {
		return "", ""
	}
	return string(s[:i]), string(s[i+1:])
}

// GatewayAPICRDs returns the CRD directory of set and the set's full name
// (the product's standard channel when set is empty), downloading the
// module that provides it when the module cache lacks it. The ListenerSet
// CRD must be in the directory.
func GatewayAPICRDs(ctx context.Context, root string, set CRDSet) (dir string, resolved CRDSet, err error) {
	productVersion, productDir, err := productGatewayAPI(ctx, root)
	if err != nil {
		return "", "", err
	}
	if set == "" {
		set = CRDSet(productVersion + "-standard")
	}
	version, channel := set.split()
	if channel != "standard" && channel != "experimental" {
		return "", "", fmt.Errorf("CRD set %q: want <version>-standard or <version>-experimental, e.g. %s", set, CRDsV170Experimental)
	}
	moduleDir := productDir
	if version != productVersion {
		var tools string
		have := []string{"the product's go.mod has " + productVersion}
		for _, m := range GatewayAPIToolsModules {
			toolsVersion, err := toolsGatewayAPIVersion(root, m)
			if err != nil {
				return "", "", err
			}
			if toolsVersion == version {
				tools = m
				break
			}
			have = append(have, m+" has "+toolsVersion)
		}
		if tools == "" {
			return "", "", fmt.Errorf("CRD set %q: no module here provides %s %s (%s)",
				set, GatewayAPIModule, version, strings.Join(have, ", "))
		}
		if moduleDir, err = downloadToolsGatewayAPI(ctx, filepath.Join(root, tools), version); err != nil {
			return "", "", err
		}
	}
	dir = filepath.Join(moduleDir, "config", "crd", channel)
	if _, err := os.Stat(filepath.Join(dir, listenerSetCRDFile)); err != nil {
		return "", "", fmt.Errorf("no ListenerSet CRD in %s: %w", dir, err)
	}
	return dir, set, nil
}

// GatewayAPICRDDir returns the standard-channel CRD directory of the
// sigs.k8s.io/gateway-api version the product module requires (the empty
// CRDSet of GatewayAPICRDs).
func GatewayAPICRDDir(ctx context.Context, root string) (string, error) {
	dir, _, err := GatewayAPICRDs(ctx, root, "")
	return dir, err
}

// goCmd runs the go command in dir, never in a workspace, and returns its
// trimmed stdout.
func goCmd(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s (in %s): %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// productGatewayAPI is the version and module directory of the
// sigs.k8s.io/gateway-api the product module requires.
func productGatewayAPI(ctx context.Context, root string) (version, dir string, err error) {
	list := func() (string, string, error) {
		out, err := goCmd(ctx, root, nil, "list", "-m", "-f", "{{.Version}} {{.Dir}}", GatewayAPIModule)
		if err != nil {
			return "", "", err
		}
		v, d, _ := strings.Cut(out, " ")
		return v, d, nil
	}
	if version, dir, err = list(); err != nil {
		return "", "", err
	}
	if dir == "" {
		if _, err := goCmd(ctx, root, nil, "mod", "download", GatewayAPIModule); err != nil {
			return "", "", err
		}
		if version, dir, err = list(); err != nil {
			return "", "", err
		}
	}
	if version == "" || dir == "" {
		return "", "", fmt.Errorf("go list gave no version or directory for %s", GatewayAPIModule)
	}
	return version, dir, nil
}

// toolsRequire matches the tools module's require line.
var toolsRequire = regexp.MustCompile(`^\s*(?:require\s+)?` + regexp.QuoteMeta(GatewayAPIModule) + `\s+(v\S+)`)

// toolsGatewayAPIVersion reads the version the tools module (one of
// GatewayAPIToolsModules) requires. Its go.mod is read, not loaded: Go
// refuses to load a module graph that needs a newer Go.
func toolsGatewayAPIVersion(root, module string) (string, error) {
	path := filepath.Join(root, module, "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		if m := toolsRequire.FindStringSubmatch(s.Text()); m != nil {
			return m[1], nil
		}
	}
	return "", fmt.Errorf("%s requires no %s", path, GatewayAPIModule)
}

// downloadJSON is what `go mod download -json` prints for one module.
type downloadJSON struct {
	Path, Version, Error, Dir, Sum string
}

// tooNew is the error the go command reports after unpacking a module whose
// go.mod asks for a newer Go (cmd/go's gover.TooNewError).
var tooNew = regexp.MustCompile(`^\S+ requires go >= \S+ \(running go [^)]+\)$`)

// downloadToolsGatewayAPI runs `go mod download -json` in the tools module
// and returns the module's directory in the module cache.
//
// The go command fetches the module zip, checks it against the tools
// module's go.sum (a mismatch is a "SECURITY ERROR", never unpacked), unpacks it
// into the module cache, and only then compares the module's go directive
// with its own version: for v1.7.0 (go 1.27.0) under Go 1.26 it reports that
// as the module's Error and exits 1, without "Dir". That one error is
// accepted when the unpacked directory is complete; any other (no network,
// a checksum mismatch) fails. A Go new enough prints Dir and no error.
// GOTOOLCHAIN=local keeps the go command from fetching a newer Go instead.
func downloadToolsGatewayAPI(ctx context.Context, toolsDir, version string) (string, error) {
	// -mod=readonly: the tools module's go.mod and go.sum are never rewritten.
	env := []string{"GOTOOLCHAIN=local", "GOFLAGS=" + strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=readonly")}
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", GatewayAPIModule)
	cmd.Dir = toolsDir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var m downloadJSON
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("go mod download -json %s in %s: %v (output %q, stderr %q)",
			GatewayAPIModule, toolsDir, runErr, out, stderr.String())
	}
	if m.Path != GatewayAPIModule || m.Version != version {
		return "", fmt.Errorf("go mod download in %s gave %s@%s, want %s@%s", toolsDir, m.Path, m.Version, GatewayAPIModule, version)
	}
	switch {
	case m.Error == "" && runErr == nil && m.Dir != "":
		return m.Dir, nil
	case !tooNew.MatchString(m.Error):
		return "", fmt.Errorf("go mod download %s@%s in %s: %s %s", m.Path, m.Version, toolsDir, m.Error, strings.TrimSpace(stderr.String()))
	}
	// Unpacked, then refused for its go directive: the module cache's
	// directory for it is complete once its .partial marker is gone.
	if want, err := goSumLine(toolsDir, version); err != nil {
		return "", err
	} else if m.Sum != want {
		return "", fmt.Errorf("go mod download %s@%s: sum %s, %s/go.sum has %s", m.Path, m.Version, m.Sum, toolsDir, want)
	}
	cache, err := goCmd(ctx, toolsDir, env, "env", "GOMODCACHE")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, escapeModulePath(GatewayAPIModule)+"@"+escapeModulePath(version))
	if _, err := os.Stat(dir + ".partial"); err == nil {
		return "", fmt.Errorf("%s is only partly unpacked (%s.partial exists)", dir, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("go mod download reported %q but did not unpack %s@%s: %w", m.Error, m.Path, m.Version, err)
	}
	return dir, nil
}

// goSumLine is the h1: hash of the module zip in the tools module's go.sum.
func goSumLine(toolsDir, version string) (string, error) {
	data, err := os.ReadFile(filepath.Join(toolsDir, "go.sum"))
	if err != nil {
		return "", err
	}
	prefix := GatewayAPIModule + " " + version + " "
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("%s/go.sum has no line for %s %s", toolsDir, GatewayAPIModule, version)
}

// escapeModulePath is the module cache's case encoding of a module path or
// version (module.EscapePath of x/mod): an upper-case letter becomes
// '!' and its lower case.
func escapeModulePath(s string) string {
	var b strings.Builder
	for _, r := range s {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ListenerSetCRD reads set's ListenerSet CRD from its directory
// (GatewayAPICRDs), as a cluster started with set installs it.
func ListenerSetCRD(ctx context.Context, root string, set CRDSet) (*apiextensionsv1.CustomResourceDefinition, error) {
	dir, resolved, err := GatewayAPICRDs(ctx, root, set)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, listenerSetCRDFile))
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", resolved, listenerSetCRDFile, err)
	}
	if crd.Name != "listenersets.gateway.networking.k8s.io" {
		return nil, fmt.Errorf("%s: %s holds %s, not the ListenerSet CRD", resolved, listenerSetCRDFile, crd.Name)
	}
	return crd, nil
}
