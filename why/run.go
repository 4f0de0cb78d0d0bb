package why

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Exit codes of Run.
const (
	// ExitOK: nothing is wrong (or the set is not Airlock's to judge).
	ExitOK = 0
	// ExitWrong: something is wrong: a listener predicted not Accepted, a
	// difference with the reported status, a route naming the set that
	// attaches to none of its listeners, a missing Secret or one of
	// another type, a certificateRef no ReferenceGrant permits, a class
	// not accepted or without ListenerSet support, a parent not found.
	ExitWrong = 1
	// ExitCannotRun: the command could not run: a bad argument, the
	// ListenerSet not found or unreadable, the cluster unreachable.
	ExitCannotRun = 2
)

// Kubeconfig is where the cluster is: a kubeconfig file ("" finds one as
// kubectl does) and a context ("" its current one).
type Kubeconfig struct {
	Path    string
	Context string
}

func (k Kubeconfig) loader() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.Path
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: k.Context})
}

// RESTConfig is the kubeconfig's client configuration.
func (k Kubeconfig) RESTConfig() (*rest.Config, error) { return k.loader().ClientConfig() }

// Namespace is the context's namespace, as kubectl defaults it ("default"
// when the context sets none).
func (k Kubeconfig) Namespace() (string, error) {
	ns, _, err := k.loader().Namespace()
	return ns, err
}

// ParseName reads the NAME argument: "namespace/name", or a name in
// namespace (the -n flag, else the context's). The -n flag and a namespace
// in the argument must agree.
func ParseName(arg, namespace string, contextNamespace func() (string, error)) (ns, name string, err error) {
	if n, rest, ok := strings.Cut(arg, "/"); ok {
		if n == "" || rest == "" || strings.Contains(rest, "/") {
			return "", "", fmt.Errorf("%q: must be NAMESPACE/NAME or NAME", arg)
		}
		if namespace != "" && namespace != n {
			return "", "", fmt.Errorf("%q names namespace %q, -n names %q", arg, n, namespace)
		}
		return n, rest, nil
	}
	if arg == "" {
		return "", "", fmt.Errorf("a ListenerSet name is needed: NAMESPACE/NAME or NAME")
	}
	if namespace == "" {
		if namespace, err = contextNamespace(); err != nil {
			return "", "", err
		}
	}
	return namespace, arg, nil
}

// Options of Run.
type RunOptions struct {
	Options
	Namespace, Name string
	// Client reads the cluster, with the user's rights.
	Client client.Reader
	Format Format
	Stdout io.Writer
	Stderr io.Writer
}

// NewClient is a read client for cfg that knows Scheme's kinds.
func NewClient(cfg *rest.Config) (client.Reader, error) {
	return client.New(cfg, client.Options{Scheme: Scheme()})
}

// Run explains one ListenerSet and returns the exit code.
func Run(ctx context.Context, opts RunOptions) int {
	s, err := Read(ctx, opts.Client, opts.Namespace, opts.Name)
	switch {
	case errors.Is(err, ErrNotFound):
		fmt.Fprintf(opts.Stderr, "error: ListenerSet %s/%s not found (kubectl get listenersets -A lists them)\n", opts.Namespace, opts.Name)
		return ExitCannotRun
	case err != nil:
		fmt.Fprintf(opts.Stderr, "error: %v\n", err)
		return ExitCannotRun
	}
	e := Explain(s, opts.Options)
	if err := Write(opts.Stdout, e, opts.Format); err != nil {
		fmt.Fprintf(opts.Stderr, "error: %v\n", err)
		return ExitCannotRun
	}
	if len(e.Problems) > 0 {
		return ExitWrong
	}
	return ExitOK
}

// Names are the ListenerSets c can list, as "namespace/name", for the
// completion of the NAME argument.
func Names(ctx context.Context, c client.Reader) ([]string, error) {
	var names []string
	err := pages(ctx, c, "", func() *gwv1.ListenerSetList { return &gwv1.ListenerSetList{} }, func(l *gwv1.ListenerSetList) {
		for _, ls := range l.Items {
			names = append(names, ls.Namespace+"/"+ls.Name)
		}
	})
	return names, err
}
