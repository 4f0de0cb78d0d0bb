package why

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/offline/live"
)

// Scheme knows the kinds Read reads: the core ones (Namespaces, Secrets)
// and Gateway API's.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = gwv1.Install(s)
	return s
}

// ErrNotFound is Read's error when the ListenerSet does not exist.
var ErrNotFound = errors.New("not found")

// Snapshot is what Read read around one ListenerSet.
type Snapshot struct {
	// Set is the ListenerSet asked about.
	Set *gwv1.ListenerSet
	// Gateway is its parent, nil when GatewayKnown is false or it does not
	// exist; likewise Class, the Gateway's GatewayClass.
	Gateway      *gwv1.Gateway
	GatewayKnown bool
	Class        *gwv1.GatewayClass
	ClassKnown   bool
	// Objects are the objects the rules read: the Gateway, its class, its
	// ListenerSets (Set among them), the Namespaces read, the
	// ReferenceGrants read and the HTTPRoutes that name Set. A kind that
	// could not be read is nil, so that the rules that need it skip.
	Objects *validation.Objects
	// SetsPartial says the Gateway's ListenerSets could be read in some
	// namespaces only (Set's and the Gateway's): a conflict with a set of
	// another namespace cannot be told.
	SetsPartial bool
	// RoutesPartial says the HTTPRoutes could be read in Set's namespace
	// only.
	RoutesPartial bool
	// Grants are the ReferenceGrants of each namespace a certificateRef of
	// Set points into from another namespace; a namespace whose grants
	// could not be read is absent.
	Grants map[string][]*gwv1.ReferenceGrant
	// Secrets are the Secrets Set's certificateRefs name, by
	// "namespace/name".
	Secrets map[string]Secret
	// Unread names what could not be read, and why, in the order read.
	Unread []Unread
}

// Secret is what a get of one Secret told: whether it exists and its type.
// Its data is never kept.
type Secret struct {
	// Known is false when the get failed (Reason says why).
	Known  bool
	Exists bool
	Type   corev1.SecretType
	Reason string
}

// Unread is a read that failed: what, and why ("forbidden").
type Unread struct {
	What   string `json:"what"`
	Reason string `json:"reason"`
}

// String is "could not read WHAT: REASON".
func (u Unread) String() string { return "could not read " + u.What + ": " + u.Reason }

// Read reads, with c and its rights, what explaining ListenerSet
// namespace/name needs. Only the ListenerSet itself must be readable:
// ErrNotFound when it does not exist, another error when it cannot be read;
// every other read that fails is noted in Unread and left unknown.
func Read(ctx context.Context, c client.Reader, namespace, name string) (*Snapshot, error) {
	ls := &gwv1.ListenerSet{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, ls); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("reading ListenerSet %s/%s: %w", namespace, name, err)
	}
	s := &Snapshot{Set: ls, Objects: &validation.Objects{Sets: []*gwv1.ListenerSet{ls}, Namespaces: []*metav1.PartialObjectMetadata{}},
		Grants: map[string][]*gwv1.ReferenceGrant{}, Secrets: map[string]Secret{}}
	r := reader{ctx: ctx, c: c, s: s}
	r.parent()
	r.sets()
	r.routes()
	r.namespaces()
	r.certificates()
	return s, nil
}

type reader struct {
	ctx context.Context
	c   client.Reader
	s   *Snapshot
}

func (r *reader) unread(what string, err error) {
	r.s.Unread = append(r.s.Unread, Unread{What: what, Reason: reasonOf(err)})
}

// reasonOf is a failed read's reason as a user reads it: the API's reason
// ("forbidden"), or that the kind is not served.
func reasonOf(err error) string {
	switch {
	case meta.IsNoMatchError(err):
		return "the API is not served"
	case apierrors.IsForbidden(err):
		return "forbidden"
	case apierrors.IsUnauthorized(err):
		return "unauthorized"
	}
	if reason := apierrors.ReasonForError(err); reason != metav1.StatusReasonUnknown {
		return strings.ToLower(string(reason))
	}
	return err.Error()
}

// parent gets the parent Gateway and its GatewayClass by name.
func (r *reader) parent() {
	key, ok := validation.ParentKey(r.s.Set)
	if !ok {
		// Not a Gateway: the object's own rules say so; nothing to read.
		r.s.GatewayKnown = true
		r.s.Objects.Gateways = []*gwv1.Gateway{}
		return
	}
	ns, name, _ := strings.Cut(key, "/")
	gw := &gwv1.Gateway{}
	switch err := r.c.Get(r.ctx, types.NamespacedName{Namespace: ns, Name: name}, gw); {
	case apierrors.IsNotFound(err):
		r.s.GatewayKnown = true
		r.s.Objects.Gateways = []*gwv1.Gateway{}
		return
	case err != nil:
		r.unread("Gateway "+key, err)
		return
	}
	r.s.Gateway, r.s.GatewayKnown = gw, true
	r.s.Objects.Gateways = []*gwv1.Gateway{gw}
	gc := &gwv1.GatewayClass{}
	switch err := r.c.Get(r.ctx, types.NamespacedName{Name: string(gw.Spec.GatewayClassName)}, gc); {
	case apierrors.IsNotFound(err):
		r.s.ClassKnown = true
		r.s.Objects.Classes = []*gwv1.GatewayClass{}
	case err != nil:
		r.unread(fmt.Sprintf("GatewayClass %q", gw.Spec.GatewayClassName), err)
	default:
		r.s.Class, r.s.ClassKnown = gc, true
		r.s.Objects.Classes = []*gwv1.GatewayClass{gc}
	}
}

// sets lists the ListenerSets whose parentRef names the Gateway: of every
// namespace, or, when that is refused, of Set's and the Gateway's.
func (r *reader) sets() {
	if r.s.Gateway == nil {
		return
	}
	gwKey := validation.GatewayKey(r.s.Gateway.Namespace, r.s.Gateway.Name)
	keep := func(l *gwv1.ListenerSetList) {
		for i := range l.Items {
			ls := &l.Items[i]
			if k, ok := validation.ParentKey(ls); ok && k == gwKey && !(ls.Namespace == r.s.Set.Namespace && ls.Name == r.s.Set.Name) {
				r.s.Objects.Sets = append(r.s.Objects.Sets, ls)
			}
		}
	}
	newList := func() *gwv1.ListenerSetList { return &gwv1.ListenerSetList{} }
	err := pages(r.ctx, r.c, "", newList, keep)
	if err == nil {
		return
	}
	r.unread("ListenerSets of all namespaces", err)
	r.s.SetsPartial = true
	for _, ns := range uniq(r.s.Set.Namespace, r.s.Gateway.Namespace) {
		if err := pages(r.ctx, r.c, ns, newList, keep); err != nil {
			r.unread("ListenerSets of namespace "+ns, err)
		}
	}
}

// routes lists the HTTPRoutes that name Set: of every namespace, or, when
// that is refused, of Set's.
func (r *reader) routes() {
	key := validation.ListenerSetKey(r.s.Set.Namespace, r.s.Set.Name)
	routes := []*gwv1.HTTPRoute{}
	keep := func(l *gwv1.HTTPRouteList) {
		for i := range l.Items {
			if slices.Contains(validation.RouteKeys(&l.Items[i]), key) {
				routes = append(routes, &l.Items[i])
			}
		}
	}
	newList := func() *gwv1.HTTPRouteList { return &gwv1.HTTPRouteList{} }
	err := pages(r.ctx, r.c, "", newList, keep)
	if err == nil {
		r.s.Objects.Routes = routes
		return
	}
	r.unread("HTTPRoutes of all namespaces", err)
	if meta.IsNoMatchError(err) {
		return
	}
	if err := pages(r.ctx, r.c, r.s.Set.Namespace, newList, keep); err != nil {
		r.unread("HTTPRoutes of namespace "+r.s.Set.Namespace, err)
		return
	}
	r.s.RoutesPartial = true
	r.s.Objects.Routes = routes
}

// namespaces gets the metadata of each Namespace the decisions read the
// labels of: Set's (allowedListeners, its owner), the other sets' (their
// owners) and the routes' (allowedRoutes).
func (r *reader) namespaces() {
	names := []string{r.s.Set.Namespace}
	for _, ls := range r.s.Objects.Sets {
		names = append(names, ls.Namespace)
	}
	for _, rt := range r.s.Objects.Routes {
		names = append(names, rt.Namespace)
	}
	for _, name := range uniq(names...) {
		ns := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}}
		if err := r.c.Get(r.ctx, types.NamespacedName{Name: name}, ns); err != nil {
			if !apierrors.IsNotFound(err) {
				r.unread("Namespace "+name, err)
			}
			continue
		}
		r.s.Objects.Namespaces = append(r.s.Objects.Namespaces, ns)
	}
}

// certificates gets each Secret Set's certificateRefs name, keeping its
// type only, and lists the ReferenceGrants of each namespace one points
// into from another.
func (r *reader) certificates() {
	tried := map[string]bool{}
	for _, ref := range certificateRefs(r.s.Set) {
		k := ref.Namespace + "/" + ref.Name
		if _, done := r.s.Secrets[k]; done {
			continue
		}
		r.s.Secrets[k] = r.secret(ref.Namespace, ref.Name)
		if ref.Namespace == r.s.Set.Namespace {
			continue
		}
		if tried[ref.Namespace] {
			continue
		}
		tried[ref.Namespace] = true
		var grants []*gwv1.ReferenceGrant
		err := pages(r.ctx, r.c, ref.Namespace, func() *gwv1.ReferenceGrantList { return &gwv1.ReferenceGrantList{} }, func(l *gwv1.ReferenceGrantList) {
			for i := range l.Items {
				grants = append(grants, &l.Items[i])
			}
		})
		if err != nil {
			r.unread("ReferenceGrants of namespace "+ref.Namespace, err)
			continue
		}
		if grants == nil {
			grants = []*gwv1.ReferenceGrant{}
		}
		r.s.Grants[ref.Namespace] = grants
		r.s.Objects.Grants = append(r.s.Objects.Grants, grants...)
	}
	if r.s.Objects.Grants == nil && len(r.s.Grants) > 0 {
		r.s.Objects.Grants = []*gwv1.ReferenceGrant{}
	}
}

// secret gets one Secret and keeps its type: the data goes at once.
func (r *reader) secret(namespace, name string) Secret {
	sec := &corev1.Secret{}
	err := r.c.Get(r.ctx, types.NamespacedName{Namespace: namespace, Name: name}, sec)
	typ := sec.Type
	sec.Data, sec.StringData = nil, nil
	switch {
	case apierrors.IsNotFound(err):
		return Secret{Known: true}
	case err != nil:
		r.unread(fmt.Sprintf("Secret %s/%s", namespace, name), err)
		return Secret{Reason: reasonOf(err)}
	}
	return Secret{Known: true, Exists: true, Type: typ}
}

// certRef is a certificateRef of a Secret, with its namespace resolved.
type certRef struct {
	Listener  int
	Namespace string
	Name      string
}

// certificateRefs are ls's certificateRefs that name Secrets (defaulted as
// the CRD defaults group and kind), in listener order.
func certificateRefs(ls *gwv1.ListenerSet) []certRef {
	var out []certRef
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if l.TLS == nil {
			continue
		}
		for _, ref := range l.TLS.CertificateRefs {
			if ref.Group != nil && *ref.Group != defaults.SecretGroup || ref.Kind != nil && *ref.Kind != defaults.SecretKind || ref.Name == "" {
				continue
			}
			ns := ls.Namespace
			if ref.Namespace != nil && *ref.Namespace != "" {
				ns = string(*ref.Namespace)
			}
			out = append(out, certRef{Listener: i, Namespace: ns, Name: string(ref.Name)})
		}
	}
	return out
}

// pages lists one kind (in namespace, "" for all) a page at a time, as
// the audit does (live.Pages).
func pages[L client.ObjectList](ctx context.Context, c client.Reader, namespace string, newList func() L, page func(L)) error {
	var opts []client.ListOption
	if namespace != "" {
		opts = append(opts, client.InNamespace(namespace))
	}
	return live.Pages(ctx, c, live.DefaultPageSize, newList, page, opts...)
}

// uniq is names without repeats, in first-seen order.
func uniq(names ...string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
