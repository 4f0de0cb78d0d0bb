// Package localcluster runs a real Kubernetes control plane on this machine
// for `make run` and the end-to-end tests: etcd and kube-apiserver (built from
// source by hack/k8s-binaries.sh) started through controller-runtime's envtest,
// with a set of Gateway API CRDs installed from the module cache (the
// standard channel of the product's version unless Options.CRDs names
// another, see CRDSet), and
// helpers to register the ListenerSet webhook and to run the real kubectl.
//
// Nothing here runs a controller, a scheduler or a kubelet: objects are only
// admitted and stored, which is all an admission webhook needs.
package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Options configure Start.
type Options struct {
	// Root is the repository root (RepoRoot() when empty).
	Root string
	// BinDir holds kube-apiserver, kubectl and etcd. When empty, Start runs
	// hack/k8s-binaries.sh (EnsureBinaries) to build or find them.
	BinDir string
	// Progress receives the binaries script's progress (may be nil).
	Progress io.Writer
	// Step, when set, is called as each of Start's steps begins (starting
	// etcd and kube-apiserver, installing the CRDs) with a line that says
	// what it does, for a progress display.
	Step func(step string)
	// ControlPlaneOutput, when set, receives etcd's and kube-apiserver's logs.
	ControlPlaneOutput io.Writer
	// StartTimeout bounds the start of etcd and of kube-apiserver (default 2m:
	// a loaded 2-core machine needs far more than envtest's 20s default).
	StartTimeout time.Duration
	// APIServerArgs are extra kube-apiserver flags (name without "--" to
	// values), e.g. {"enable-aggregator-routing": {"true"}} so that webhook
	// configurations that name a Service reach an EndpointSlice's address.
	APIServerArgs map[string][]string
	// CRDs names the Gateway API CRDs to install (GatewayAPICRDs): empty for
	// the standard channel of the version in the product's go.mod, or e.g.
	// CRDsV170Experimental.
	CRDs CRDSet
}

// Cluster is a running control plane.
type Cluster struct {
	Env    *envtest.Environment
	Config *rest.Config
	Client client.Client
	Scheme *runtime.Scheme
	// BinDir holds the binaries, Kubectl the path of kubectl among them.
	BinDir, KubectlPath string
	// ServerVersion is kube-apiserver's version as it reports it (v1.37.2).
	ServerVersion string
	// CRDDir is where the Gateway API CRDs were installed from, CRDs which
	// set they are (never empty, e.g. CRDsV163Standard).
	CRDDir string
	CRDs   CRDSet
	// LeftOut are the CRD files of CRDDir not installed because this
	// kube-apiserver is too old for them (crdsNeedingNewerServer).
	LeftOut []string
	// Kubeconfig is an admin kubeconfig (system:masters) for the cluster.
	Kubeconfig []byte
	// KubeconfigPath is where Start wrote Kubeconfig (in a temp dir unless
	// WriteKubeconfig moved it).
	KubeconfigPath string
	tmp            string
}

// Start builds or finds the binaries, starts etcd and kube-apiserver, and
// installs the Gateway API CRDs of opts.CRDs. Stop the cluster with Stop.
//
// Each CRD directory also holds gateway.networking.k8s.io_vap_safeupgrades.yaml,
// a ValidatingAdmissionPolicy (and its binding) that guards CRD upgrades, not
// a CRD, and the experimental one a kustomization.yaml: envtest reads only
// documents of kind CustomResourceDefinition from a path, so both are
// skipped; every cluster gets one set, fresh, and is never upgraded, so the
// policy is not needed.
func Start(ctx context.Context, opts Options) (_ *Cluster, retErr error) {
	var err error
	if opts.Root == "" {
		if opts.Root, err = RepoRoot(); err != nil {
			return nil, err
		}
	}
	if opts.BinDir == "" {
		if opts.BinDir, err = EnsureBinaries(ctx, opts.Root, opts.Progress); err != nil {
			return nil, err
		}
	}
	crdDir, crdSet, err := GatewayAPICRDs(ctx, opts.Root, opts.CRDs)
	if err != nil {
		return nil, err
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 2 * time.Minute
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}

	step := opts.Step
	if step == nil {
		step = func(string) {}
	}

	// The CRDs are installed after env.Start rather than by it, so that
	// installing them is a step of its own.
	env := &envtest.Environment{
		Scheme:                   scheme,
		BinaryAssetsDirectory:    opts.BinDir,
		ControlPlaneStartTimeout: opts.StartTimeout,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// Explicit paths: KUBEBUILDER_ASSETS or TEST_ASSET_* in the environment
	// must not swap in other binaries than the ones this repository pins.
	api := env.ControlPlane.GetAPIServer()
	api.Path = filepath.Join(opts.BinDir, "kube-apiserver")
	for name, values := range opts.APIServerArgs {
		api.Configure().Set(name, values...)
	}
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(opts.BinDir, "etcd")}
	env.ControlPlane.KubectlPath = filepath.Join(opts.BinDir, "kubectl")
	if w := opts.ControlPlaneOutput; w != nil {
		api.Out, api.Err = w, w
		env.ControlPlane.Etcd.Out, env.ControlPlane.Etcd.Err = w, w
	}

	step("starting etcd and kube-apiserver from " + opts.BinDir)
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("starting etcd and kube-apiserver from %s: %w", opts.BinDir, err)
	}
	c := &Cluster{
		Env: env, Config: cfg, Scheme: scheme, BinDir: opts.BinDir, CRDDir: crdDir, CRDs: crdSet,
		KubectlPath: env.ControlPlane.KubectlPath, Kubeconfig: env.KubeConfig,
	}
	defer func() {
		if retErr != nil {
			_ = c.Stop()
		}
	}()
	if c.ServerVersion, err = checkServerVersion(cfg); err != nil {
		return nil, err
	}
	// The version is in the path (…/gateway-api@v1.6.3/config/crd/standard);
	// make run's progress line reads as it always has.
	paths, err := crdPaths(crdDir, c.ServerVersion, &c.LeftOut)
	if err != nil {
		return nil, err
	}
	step("installing the Gateway API " + crdSet.Channel() + " CRDs from " + crdDir)
	for _, f := range c.LeftOut {
		step(fmt.Sprintf("leaving out %s: %s", f, crdsNeedingNewerServer[f].reason))
	}
	env.CRDs, err = envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Scheme:             scheme,
		Paths:              paths,
		ErrorIfPathMissing: true,
		MaxTime:            time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("installing the CRDs from %s: %w", crdDir, err)
	}
	if len(env.CRDs) == 0 {
		return nil, fmt.Errorf("no CRDs installed from %s", crdDir)
	}
	if c.Client, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}
	if c.tmp, err = os.MkdirTemp("", "localcluster-"); err != nil {
		return nil, err
	}
	if err := c.WriteKubeconfig(filepath.Join(c.tmp, "kubeconfig")); err != nil {
		return nil, err
	}
	return c, nil
}

// crdsNeedingNewerServer are the Gateway API CRD files that an older
// kube-apiserver refuses, with the first minor that takes them. Nothing here
// serves or reads those kinds; a cluster of that version cannot have them
// either (docs/kubernetes-versions.md). Any other refusal fails Start.
var crdsNeedingNewerServer = map[string]struct {
	minor  int
	reason string
}{
	"gateway.networking.k8s.io_tlsroutes.yaml": {31, "its CEL uses isIP (the IP library of Kubernetes 1.31); kube-apiserver 1.30 refuses the CRD"},
}

// crdPaths lists the YAML files of dir that a kube-apiserver of
// serverVersion (v1.30.14) takes, adding the others' names to leftOut.
func crdPaths(dir, serverVersion string, leftOut *[]string) ([]string, error) {
	var major, minor int
	if _, err := fmt.Sscanf(serverVersion, "v%d.%d", &major, &minor); err != nil {
		return nil, fmt.Errorf("kube-apiserver version %q: %w", serverVersion, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		if need, ok := crdsNeedingNewerServer[e.Name()]; ok && major == 1 && minor < need.minor {
			*leftOut = append(*leftOut, e.Name())
			continue
		}
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	return paths, nil
}

// checkServerVersion returns kube-apiserver's version, and an error when
// KubeVersionEnv names another: a version matrix row must be about the
// version it names, not about whichever binaries were found.
func checkServerVersion(cfg *rest.Config) (string, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return "", err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return "", fmt.Errorf("asking kube-apiserver its version: %w", err)
	}
	if want := os.Getenv(KubeVersionEnv); want != "" && v.GitVersion != "v"+strings.TrimPrefix(want, "v") {
		return "", fmt.Errorf("kube-apiserver reports %s, but %s=%s", v.GitVersion, KubeVersionEnv, want)
	}
	return v.GitVersion, nil
}

// WriteKubeconfig writes the admin kubeconfig to path (mode 0600) and makes
// it the one Kubectl uses.
func (c *Cluster) WriteKubeconfig(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(path, c.Kubeconfig, 0o600); err != nil {
		return err
	}
	c.KubeconfigPath = path
	return nil
}

// Stop stops kube-apiserver and etcd and removes their data.
func (c *Cluster) Stop() error {
	var errs []error
	if c.Env != nil {
		errs = append(errs, c.Env.Stop())
	}
	if c.tmp != "" {
		errs = append(errs, os.RemoveAll(c.tmp))
	}
	return errors.Join(errs...)
}

// KubectlResult is what one kubectl run printed.
type KubectlResult struct {
	Stdout, Stderr string
	// Err is non-nil when kubectl exited non-zero (or did not run).
	Err error
}

// Output is stdout and stderr together, as a terminal would show them
// (stderr last).
func (r KubectlResult) Output() string { return r.Stdout + r.Stderr }

// Kubectl runs the real kubectl against the cluster with stdin as its input
// (may be empty).
func (c *Cluster) Kubectl(ctx context.Context, stdin string, args ...string) KubectlResult {
	cmd := exec.CommandContext(ctx, c.KubectlPath, append([]string{"--kubeconfig", c.KubeconfigPath}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	// A user's kubectl settings must not change what the tests see.
	cmd.Env = append(os.Environ(), "KUBECTL_COMMAND_HEADERS=false", "KUBERC=off")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("kubectl %s: %w", strings.Join(args, " "), err)
	}
	return KubectlResult{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}
