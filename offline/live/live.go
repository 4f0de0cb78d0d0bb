package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"

	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/policyreport"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/offline/report"
)

// DefaultPageSize is how many objects one list request asks for: kubectl's
// own chunk size.
const DefaultPageSize = 500

// Options are the audit command's.
type Options struct {
	// Namespace, when set, selects the ListenerSets of that namespace.
	Namespace string
	// Gateway, "namespace/name" when set, selects the ListenerSets whose
	// parentRef names that Gateway.
	Gateway string
	// Secrets lists Secrets' metadata too, for the check that a
	// certificateRef's Secret exists; without it that check is skipped, as
	// in the webhook without --watch-secrets.
	Secrets bool
	// PageSize is the Limit of each list request; DefaultPageSize when 0.
	PageSize int64
	// Judge says how to judge (Strict, AddedNames and Scope apply: the CRD
	// is not applied again). With Judge.Scope on, GatewayClasses are listed
	// too.
	Judge judge.Options
	// Format is report.Text when empty.
	Format report.Format
	// Reports writes a PolicyReport per namespace too (offline/policyreport)
	// when the cluster serves the API, and deletes the stale ones (of
	// Namespace only, when set).
	Reports bool
	// NoFindingsExit: invalid ListenerSets exit 0 (findings reported, the
	// run not failed); a cluster that cannot be listed or a failed report
	// write still exits 2.
	NoFindingsExit bool
	Stdout         io.Writer
	Stderr         io.Writer
}

// Kinds says what List lists besides Gateways, ListenerSets and the
// metadata of Namespaces, which every reader of a live cluster needs: each
// command lists only what its rules read, so that the RBAC it asks for stays
// that small (listeners reads no ReferenceGrants; the audit reads Secrets
// only when asked).
type Kinds struct {
	ReferenceGrants bool
	// GatewayClasses, for the scope (validation.Scope): whose Gateway is
	// Airlock's.
	GatewayClasses bool
	// Secrets lists Secrets' metadata (RBAC has no metadata-only
	// permission: list on secrets).
	Secrets bool
	// HTTPRoutes lists HTTPRoutes, for the routes that name a ListenerSet
	// and attach to none of its listeners. A cluster without the
	// HTTPRoute API leaves them unknown, and nothing is said of routes.
	HTTPRoutes bool
}

// auditKinds are what Read, the audit's and validate --kubeconfig's view,
// lists: GatewayClasses only when scoped by them.
func auditKinds(secrets, classes bool) Kinds {
	return Kinds{ReferenceGrants: true, GatewayClasses: classes, Secrets: secrets, HTTPRoutes: true}
}

// KindRules are all List needs for k: list on each kind it lists. No get,
// no watch, nothing else.
func KindRules(k Kinds) []rbacv1.PolicyRule {
	gatewayKinds := []string{"gateways", "listenersets"}
	if k.ReferenceGrants {
		gatewayKinds = append(gatewayKinds, "referencegrants")
	}
	if k.GatewayClasses {
		gatewayKinds = append(gatewayKinds, "gatewayclasses")
	}
	if k.HTTPRoutes {
		gatewayKinds = append(gatewayKinds, "httproutes")
	}
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{gwv1.GroupName}, Resources: gatewayKinds, Verbs: []string{"list"}},
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"list"}},
	}
	if k.Secrets {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}})
	}
	return rules
}

// RBACRules are all Read needs: list on Gateways, ListenerSets,
// ReferenceGrants and Namespaces, with classes (the scope on) on
// GatewayClasses, and with secrets on Secrets.
func RBACRules(secrets, classes bool) []rbacv1.PolicyRule {
	return KindRules(auditKinds(secrets, classes))
}

// ClusterRoleName is the name of the ClusterRole ClusterRole returns.
const ClusterRoleName = "listenerset-audit"

// ClusterRole is RBACRules as a ClusterRole to apply and bind to whoever
// runs the audit.
func ClusterRole(secrets, classes bool) *rbacv1.ClusterRole {
	return clusterRole(ClusterRoleName, RBACRules(secrets, classes))
}

// clusterRole is a ClusterRole of rules, as --print-rbac prints it.
func clusterRole(name string, rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      rules,
	}
}

// ReportsClusterRoleName is the name of the ClusterRole ReportsClusterRole
// returns.
const ReportsClusterRoleName = ClusterRoleName + "-reports"

// ReportsClusterRole is what the audit needs besides ClusterRole to write
// PolicyReports (Options.Reports): policyreport.RBACRules, on the report
// kind alone, kept apart from the list-only rules.
func ReportsClusterRole() *rbacv1.ClusterRole {
	return clusterRole(ReportsClusterRoleName, policyreport.RBACRules())
}

// Snapshot is what Read listed.
type Snapshot struct {
	// Objects is the whole cluster's view: every Gateway, ListenerSet,
	// ReferenceGrant and Namespace (GatewayClasses and Secrets only when
	// listed; nil, an unknown kind, otherwise).
	Objects *validation.Objects
	// Selected are the ListenerSets the options select, in list order
	// (namespace, then name).
	Selected []*gwv1.ListenerSet
}

// Read lists the cluster cfg reaches, page by page, and selects the
// ListenerSets opts name.
func Read(ctx context.Context, cfg *rest.Config, opts Options) (*Snapshot, error) {
	o, err := List(ctx, cfg, auditKinds(opts.Secrets, opts.Judge.Scope.On()), opts.PageSize)
	if err != nil {
		return nil, err
	}
	return &Snapshot{Objects: o, Selected: selectSets(o.Sets, opts)}, nil
}

// List lists, read-only, every Gateway, ListenerSet and Namespace's
// metadata of the cluster cfg reaches, and what k adds, pageSize objects a
// request (DefaultPageSize when 0). A kind not listed stays nil in the
// Objects: unknown, so that its rules are skipped, not failed. Gateways and
// ListenerSets keep their status' conditions and listener entries, what
// the controller reported.
func List(ctx context.Context, cfg *rest.Config, k Kinds, pageSize int64) (*validation.Objects, error) {
	c, err := client.New(cfg, client.Options{Scheme: gwscheme.Scheme})
	if err != nil {
		return nil, err
	}
	size := pageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	o := &validation.Objects{
		Gateways: []*gwv1.Gateway{}, Sets: []*gwv1.ListenerSet{}, Namespaces: []*metav1.PartialObjectMetadata{},
	}
	if err := pages(ctx, c, size, "Gateways", func() *gwv1.GatewayList { return &gwv1.GatewayList{} }, func(l *gwv1.GatewayList) {
		for i := range l.Items {
			gw := &l.Items[i]
			// The status' conditions and listeners are what the controller
			// reported (package reported); the rest no reader looks at.
			gw.ManagedFields, gw.Status.Addresses = nil, nil
			for k := range gw.Status.Listeners {
				gw.Status.Listeners[k].SupportedKinds = nil
			}
			o.Gateways = append(o.Gateways, gw)
		}
	}); err != nil {
		return nil, err
	}
	if err := pages(ctx, c, size, "ListenerSets", func() *gwv1.ListenerSetList { return &gwv1.ListenerSetList{} }, func(l *gwv1.ListenerSetList) {
		for i := range l.Items {
			ls := &l.Items[i]
			// Most of a stored set's bytes: only the entries that tell when
			// the set came to its Gateway stay (the first-claim order of
			// the audit and the listing: a set parked elsewhere and moved
			// here came with the move, not its creation), as the webhook's
			// cache keeps them. The status' conditions and listeners stay:
			// what the controller reported (package reported), bounded by
			// the CRD (8 conditions, 64 listeners).
			ls.ManagedFields = validation.TrimmedManagedFields(ls)
			for k := range ls.Status.Listeners {
				ls.Status.Listeners[k].SupportedKinds = nil
			}
			o.Sets = append(o.Sets, ls)
		}
	}); err != nil {
		return nil, err
	}
	if k.ReferenceGrants {
		o.Grants = []*gwv1.ReferenceGrant{}
		if err := pages(ctx, c, size, "ReferenceGrants", func() *gwv1.ReferenceGrantList { return &gwv1.ReferenceGrantList{} }, func(l *gwv1.ReferenceGrantList) {
			for i := range l.Items {
				o.Grants = append(o.Grants, &l.Items[i])
			}
		}); err != nil {
			return nil, err
		}
	}
	if k.GatewayClasses {
		o.Classes = []*gwv1.GatewayClass{}
		if err := pages(ctx, c, size, "GatewayClasses", func() *gwv1.GatewayClassList { return &gwv1.GatewayClassList{} }, func(l *gwv1.GatewayClassList) {
			for i := range l.Items {
				gc := &l.Items[i]
				// The scope reads spec.controllerName, the class
				// warnings its status (conditions, supportedFeatures).
				gc.ManagedFields = nil
				o.Classes = append(o.Classes, gc)
			}
		}); err != nil {
			return nil, err
		}
	}
	if k.HTTPRoutes {
		routes := []*gwv1.HTTPRoute{}
		err := pages(ctx, c, size, "HTTPRoutes", func() *gwv1.HTTPRouteList { return &gwv1.HTTPRouteList{} }, func(l *gwv1.HTTPRouteList) {
			for i := range l.Items {
				r := &l.Items[i]
				// Attachment reads parentRefs and hostnames only, the
				// route claims when it came to its Gateway too.
				r.ManagedFields, r.Annotations, r.Spec.Rules, r.Status = validation.TrimmedRouteManagedFields(r), nil, nil, gwv1.HTTPRouteStatus{}
				routes = append(routes, r)
			}
		})
		switch {
		case err == nil:
			o.Routes = routes
		case !meta.IsNoMatchError(err) && !apierrors.IsNotFound(err):
			return nil, err
		}
	}
	if o.Namespaces, err = metadata(ctx, c, size, "Namespaces", "NamespaceList"); err != nil {
		return nil, err
	}
	if k.Secrets {
		if o.Secrets, err = metadata(ctx, c, size, "Secrets", "SecretList"); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// pages lists one kind with Limit and Continue, handing each page to page;
// what names the kind in the error.
func pages[L client.ObjectList](ctx context.Context, c client.Reader, size int64, what string, newList func() L, page func(L)) error {
	if err := Pages(ctx, c, size, newList, page); err != nil {
		return fmt.Errorf("listing %s: %w", what, err)
	}
	return nil
}

// Pages lists one kind, size objects a request, with Limit and Continue
// (and opts, such as client.InNamespace), handing each page to page; the
// list's error as the client returns it. Every page decodes into a new
// list: decoding into the last one would reuse the array whose items page
// kept.
func Pages[L client.ObjectList](ctx context.Context, c client.Reader, size int64, newList func() L, page func(L), opts ...client.ListOption) error {
	cont := ""
	for {
		l := newList()
		if err := c.List(ctx, l, append([]client.ListOption{client.Limit(size), client.Continue(cont)}, opts...)...); err != nil {
			return err
		}
		page(l)
		if cont = l.GetContinue(); cont == "" {
			return nil
		}
	}
}

// metadata lists the metadata of every object of a core kind.
func metadata(ctx context.Context, c client.Reader, size int64, what, listKind string) ([]*metav1.PartialObjectMetadata, error) {
	out := []*metav1.PartialObjectMetadata{}
	err := pages(ctx, c, size, what, func() *metav1.PartialObjectMetadataList {
		return &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: listKind}}
	}, func(l *metav1.PartialObjectMetadataList) {
		for i := range l.Items {
			m := &l.Items[i]
			m.ManagedFields = nil
			out = append(out, m)
		}
	})
	return out, err
}

// selectSets are the sets of opts.Namespace and opts.Gateway (all when
// unset), in the order listed.
func selectSets(sets []*gwv1.ListenerSet, opts Options) []*gwv1.ListenerSet {
	var parent string
	if ns, name, ok := strings.Cut(opts.Gateway, "/"); ok {
		parent = validation.GatewayKey(ns, name)
	}
	out := []*gwv1.ListenerSet{}
	for _, ls := range sets {
		if opts.Namespace != "" && ls.Namespace != opts.Namespace {
			continue
		}
		if parent != "" {
			if key, ok := validation.ParentKey(ls); !ok || key != parent {
				continue
			}
		}
		out = append(out, ls)
	}
	return out
}

// selectRoutes are the listed HTTPRoutes of opts.Namespace (all when
// unset) and, with opts.Gateway, those naming a ListenerSet selected (or
// one that does not exist, which may have been meant for it: it has no
// Gateway to tell).
func selectRoutes(snap *Snapshot, opts Options) []*gwv1.HTTPRoute {
	selected := make(map[string]bool, len(snap.Selected))
	for _, ls := range snap.Selected {
		selected[validation.ListenerSetKey(ls.Namespace, ls.Name)] = true
	}
	var out []*gwv1.HTTPRoute
	for _, r := range snap.Objects.Routes {
		if opts.Namespace != "" && r.Namespace != opts.Namespace {
			continue
		}
		if opts.Gateway != "" && !slices.ContainsFunc(validation.RouteKeys(r), func(k string) bool {
			ns, name, _ := strings.Cut(k, "/")
			ls, _ := snap.Objects.ListenerSet(ns, name)
			return selected[k] || ls == nil
		}) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// Audit reads the cluster cfg reaches, judges the selected sets and writes
// the report as opts.Format says; it returns validate's exit code
// (report.ExitValid, ExitInvalid, or ExitInputError when the cluster could
// not be listed, which the report carries as an input error).
func Audit(ctx context.Context, cfg *rest.Config, opts Options) int {
	if opts.Format == "" {
		opts.Format = report.Text
	}
	snap, err := Read(ctx, cfg, opts)
	if err != nil {
		v := &judge.Verdict{Notes: []judge.Note{{InputError: &read.InputError{Message: err.Error()}}}}
		code := offline.Report(v, offline.Options{Format: opts.Format, Stdout: opts.Stdout, Stderr: opts.Stderr})
		if opts.Reports {
			fmt.Fprintln(opts.Stderr, "PolicyReports not written: the cluster could not be listed")
		}
		return code
	}
	// What is stored has a status to compare with the prediction.
	jo := opts.Judge
	jo.Reported = true
	v := judge.Stored(snap.Objects, snap.Selected, jo)
	v.Results = append(v.Results, judge.Routes(snap.Objects, selectRoutes(snap, opts), opts.Judge)...)
	code := offline.Report(v, offline.Options{Format: opts.Format, Stdout: opts.Stdout, Stderr: opts.Stderr, NoFindingsExit: opts.NoFindingsExit})
	if opts.Reports {
		code = max(code, writeReports(ctx, cfg, snap, v, opts))
	}
	return code
}

// writeReports writes the PolicyReports of v's results and says on stderr
// what it did: a cluster without the API is one line and no error (the
// audit's exit code stands), a failed write exit 2.
func writeReports(ctx context.Context, cfg *rest.Config, snap *Snapshot, v *judge.Verdict, opts Options) int {
	uids := make(map[types.NamespacedName]types.UID, len(snap.Selected))
	for _, ls := range snap.Selected {
		uids[types.NamespacedName{Namespace: ls.Namespace, Name: ls.Name}] = ls.UID
	}
	w, err := policyreport.Write(ctx, cfg, policyreport.Build(v.Results, uids, time.Now()), opts.Namespace)
	switch {
	case errors.Is(err, policyreport.ErrNoCRD):
		fmt.Fprintf(opts.Stderr, "PolicyReports skipped: %v\n", err)
	case err != nil:
		fmt.Fprintf(opts.Stderr, "error: writing PolicyReports: %v\n", err)
		return report.ExitInputError
	default:
		fmt.Fprintf(opts.Stderr, "PolicyReports %s/%s %s: %d applied (largest %d bytes), %d stale deleted\n",
			policyreport.Group, policyreport.Version, policyreport.ReportName, w.Applied, w.Largest, w.Deleted)
	}
	return report.ExitValid
}

// DescribeRules says each rule in a line, for help texts: "list on
// gateways, listenersets, referencegrants (gateway.networking.k8s.io)".
func DescribeRules(rules []rbacv1.PolicyRule) []string {
	lines := make([]string, len(rules))
	for i, r := range rules {
		groups := make([]string, len(r.APIGroups))
		for k, g := range r.APIGroups {
			groups[k] = cmp.Or(g, "core")
		}
		lines[i] = fmt.Sprintf("%s on %s (%s)", strings.Join(r.Verbs, ", "), strings.Join(r.Resources, ", "), strings.Join(groups, ", "))
	}
	return lines
}
