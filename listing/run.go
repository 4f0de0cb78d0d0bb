package listing

import (
	"context"
	"fmt"
	"io"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

// Exit codes of Run.
const (
	// ExitOK: the listing was printed.
	ExitOK = 0
	// ExitNotFound: the Gateway Options.Gateway names is not there.
	ExitNotFound = 1
	// ExitInputError: some input could not be read, or the cluster could
	// not be listed.
	ExitInputError = 2
)

// Options are the listeners command's.
type Options struct {
	// Paths are read as validate reads them (FromManifests), unless
	// RESTConfig is set.
	Paths []string
	Stdin io.Reader
	// RESTConfig, when set, lists the cluster it reaches (FromCluster)
	// instead.
	RESTConfig *rest.Config
	// Gateway narrows the listing to one Gateway, "namespace/name".
	Gateway string
	// AddedNames are names the list-valued TLS options accept besides the
	// built-in ones, as validate's --add-names: a set is Invalid as
	// validate would judge it with them.
	AddedNames validation.AddedNames
	Format     Format
	Stdout     io.Writer
	Stderr     io.Writer
}

// Run lists the merged listeners opts ask for and returns the exit code.
// With -o json everything, input errors included, is in the document and
// nothing goes to stderr; otherwise notes go to stderr.
func Run(ctx context.Context, opts Options) int {
	var l *Listing
	var found bool
	code := ExitOK
	if opts.RESTConfig != nil {
		o, err := FromCluster(ctx, opts.RESTConfig, opts.AddedNames)
		if err != nil {
			fmt.Fprintf(opts.Stderr, "error: %v\n", err)
			return ExitInputError
		}
		l, found = Build(o, opts.Gateway)
	} else {
		o, inputErrs := FromManifests(opts.Paths, opts.Stdin, opts.AddedNames)
		l, found = Build(o, opts.Gateway)
		l.InputErrors = append(l.InputErrors, inputErrs...)
		if len(inputErrs) > 0 {
			code = ExitInputError
		}
	}
	if opts.Gateway != "" && !found && code == ExitOK {
		code = ExitNotFound
	}
	if err := Write(opts.Stdout, l, opts.Format); err != nil {
		fmt.Fprintf(opts.Stderr, "error: %v\n", err)
		return ExitInputError
	}
	if opts.Format != JSON {
		notes(opts.Stderr, l, opts.Gateway, found)
	}
	return code
}

// notes writes to stderr what the table does not show.
func notes(w io.Writer, l *Listing, gateway string, found bool) {
	for _, e := range l.InputErrors {
		where := e.File
		if e.Document > 0 {
			where += fmt.Sprintf(", document %d", e.Document)
		}
		fmt.Fprintf(w, "error: %s: %s\n", where, e.Message)
	}
	for _, u := range l.Unattached {
		fmt.Fprintf(w, "note: ListenerSet %s is in no merged list: %s\n", read.Name(u.Namespace, u.Name), u.Reason)
	}
	switch {
	case gateway != "" && !found:
		fmt.Fprintf(w, "error: Gateway %s not found\n", gateway)
	case len(l.Gateways) == 0:
		fmt.Fprintln(w, "No Gateways found.")
	}
}

// ValidGatewayName tells whether s has the "namespace/name" form --gateway
// takes.
func ValidGatewayName(s string) bool {
	ns, name, ok := strings.Cut(s, "/")
	return ok && ns != "" && name != "" && !strings.Contains(name, "/")
}
