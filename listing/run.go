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
	// Scope leaves out the Gateways that are not Airlock's (Build).
	Scope validation.Scope
	// Tenancy gives each listener its owner and claims (Input.Tenancy).
	Tenancy validation.Tenancy
	Format  Format
	Stdout  io.Writer
	Stderr  io.Writer
}

// Run lists the merged listeners opts ask for and returns the exit code.
// With -o json everything, input errors included, is in the document and
// nothing goes to stderr; otherwise notes go to stderr.
func Run(ctx context.Context, opts Options) int {
	var l *Listing
	var found bool
	code := ExitOK
	if opts.RESTConfig != nil {
		o, err := FromCluster(ctx, opts.RESTConfig, opts.AddedNames, opts.Scope)
		if err != nil {
			fmt.Fprintf(opts.Stderr, "error: %v\n", err)
			return ExitInputError
		}
		o.Tenancy = opts.Tenancy
		l, found = Build(o, opts.Gateway)
	} else {
		o, inputErrs := FromManifests(opts.Paths, opts.Stdin, opts.AddedNames, opts.Scope, opts.Tenancy)
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
	leftOut(w, l.LeftOut)
	switch {
	case gateway != "" && !found:
		fmt.Fprintf(w, "error: Gateway %s not found\n", gateway)
	case len(l.Gateways) == 0 && len(l.LeftOut) == 0:
		fmt.Fprintln(w, "No Gateways found.")
	}
}

// maxLeftOutNamed is how many left-out Gateways the note names.
const maxLeftOutNamed = 5

// leftOut notes the Gateways left out as not Airlock's: how many, the
// first few and why, and how to list them.
func leftOut(w io.Writer, out []LeftOut) {
	if len(out) == 0 {
		return
	}
	named := make([]string, 0, min(len(out), maxLeftOutNamed))
	for _, g := range out[:cap(named)] {
		named = append(named, fmt.Sprintf("%s (%s)", read.Name(g.Namespace, g.Name), g.Reason))
	}
	more := ""
	if len(out) > len(named) {
		more = fmt.Sprintf(" and %d more", len(out)-len(named))
	}
	fmt.Fprintf(w, "note: %d Gateway(s) left out, not Airlock Microgateway's (--scope=all lists them): %s%s\n",
		len(out), strings.Join(named, ", "), more)
}

// ValidGatewayName tells whether s has the "namespace/name" form --gateway
// takes.
func ValidGatewayName(s string) bool {
	ns, name, ok := strings.Cut(s, "/")
	return ok && ns != "" && name != "" && !strings.Contains(name, "/")
}
