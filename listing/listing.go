package listing

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/reported"
)

// Listing is the listeners command's result: the -o json document.
type Listing struct {
	Gateways []Gateway `json:"gateways"`
	// Unattached are the ListenerSets whose parentRef names no Gateway
	// there is.
	Unattached []Unattached `json:"unattached"`
	// LeftOut are the Gateways the scope leaves out: another
	// implementation's (their GatewayClass names another controller), or
	// of an unknown class under --unknown-parent=admit.
	LeftOut []LeftOut `json:"leftOut"`
	// InputErrors are the files or documents that could not be read.
	InputErrors []read.InputError `json:"inputErrors"`
}

// Gateway is one Gateway's merged listener list.
type Gateway struct {
	Namespace string     `json:"namespace"`
	Name      string     `json:"name"`
	Listeners []Listener `json:"listeners"`
}

// Listener is one row: a listener of the merged list and its state.
type Listener struct {
	// Precedence is the place in the merged list, from 1.
	Precedence int    `json:"precedence"`
	Source     Source `json:"source"`
	Name       string `json:"name"`
	Port       int32  `json:"port"`
	Protocol   string `json:"protocol"`
	// Hostname is null when the listener matches every hostname.
	Hostname *string `json:"hostname"`
	// State is Accepted, Conflicted, NotAllowed, Invalid or Unknown.
	State string `json:"state"`
	// Reason: see the package documentation; "" for Accepted.
	Reason string `json:"reason"`
	// Winner is the listener a Conflicted one loses to, else null.
	Winner *ListenerRef `json:"winner"`
	// Messages are the errors behind the state, as kubectl prints them.
	Messages []string `json:"messages"`
	// Conditions are the listener's conditions besides its state:
	// OverlappingTLSConfig (reason OverlappingHostnames) when its hostname
	// overlaps another TLS listener's on its port.
	Conditions []Condition `json:"conditions"`
	// AttachedRoutes is the attachedRoutes the controller will report on
	// an Accepted listener of a ListenerSet, computed ahead: how many of
	// the HTTPRoutes of the input or cluster attach to it
	// (validation.Attacher); 0 on a listener that is not Accepted; null on
	// a Gateway's own listener (routes whose parent is a Gateway are out
	// of scope) and when there are no routes. Routes names them,
	// "namespace/name", in that order.
	AttachedRoutes *int     `json:"attachedRoutes"`
	Routes         []string `json:"routes,omitempty"`
	// Owner owns a ListenerSet's listener: its namespace, or its
	// namespace's tenant with --tenant-label; null on a Gateway's own
	// listener (the platform's) and where it is unknown.
	Owner *Owner `json:"owner"`
	// HeldBy is the first listener before this one, on any port, of
	// another owner whose hostname overlaps this one's: it keeps the name
	// and the webhook's first-claim rule flags this listener.
	// OverlappedBy is the first listener after it of another owner whose
	// hostname overlaps this one's: this one keeps the name. null when none.
	HeldBy       *Claim `json:"heldBy"`
	OverlappedBy *Claim `json:"overlappedBy"`
	// RouteClaims are the names the HTTPRoutes attached through this
	// listener (a listener without a hostname, or a wildcard) claim on the
	// Gateway that another owner's listener or route holds first (routes
	// are claims: LS320), each "HTTPRoute namespace/name: " and the
	// finding; absent when none.
	RouteClaims []string `json:"routeClaims,omitempty"`
	// Reported is what the stored status says of the listener (the
	// ListenerSet's status.listeners and conditions, the Gateway's for its
	// own listeners); null when the input has no status to compare
	// (manifests).
	Reported *reported.Listener `json:"reported"`
	// Difference is where Reported parts from the prediction (State,
	// Reason, AttachedRoutes), or that nothing was reported; null when
	// they agree or nothing was compared.
	Difference *reported.Difference `json:"difference"`
}

// Owner is who owns a listener: Kind "namespace" or "tenant", and its name.
type Owner struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// String is "namespace/team-a" or "tenant/acme".
func (o *Owner) String() string { return o.Kind + "/" + o.Name }

// Claim is another owner's listener whose hostname overlaps a listener's.
type Claim struct {
	Listener ListenerRef `json:"listener"`
	Hostname string      `json:"hostname"`
	Owner    Owner       `json:"owner"`
}

// Condition is a listener condition as Gateway API's status has it, for
// the negative-polarity ones that are set only when true.
type Condition struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
	// Message names the other listener.
	Message string `json:"message"`
	// With is the other listener.
	With ListenerRef `json:"with"`
}

// Source is the object a listener comes from.
type Source struct {
	// Kind is Gateway or ListenerSet.
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// String is "Kind/namespace/name" ("Kind/name" without a namespace).
func (s Source) String() string {
	return s.Kind + "/" + read.Name(s.Namespace, s.Name)
}

// ListenerRef names a listener by its object and name.
type ListenerRef struct {
	Source Source `json:"source"`
	Name   string `json:"name"`
}

// String is "Kind/namespace/name listener name", as the webhook's messages
// name a listener.
func (r ListenerRef) String() string { return r.Source.String() + " listener " + r.Name }

// Unattached is a ListenerSet that belongs to no Gateway there is.
type Unattached struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Reason    string `json:"reason"`
}

// LeftOut is a Gateway that is not Airlock's to list.
type LeftOut struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Reason says why: its GatewayClass and that class's controller.
	Reason string `json:"reason"`
}

// Input is what a listing is built from.
type Input struct {
	// Scope says whose Gateways are listed: those a ListenerSet of would
	// be judged (validation.Scope.Decide, by Objects' GatewayClasses).
	Scope validation.Scope
	// Tenancy gives each ListenerSet listener its owner and its claims
	// across owners (validation.MergeOptions.Tenancy).
	Tenancy validation.Tenancy
	// Objects are the Gateways, Namespaces and every ListenerSet.
	Objects *validation.Objects
	// Errors are, by index of Objects.Sets, what each set is refused for
	// (none: it is admitted and takes its place in the merged lists).
	Errors [][]judge.FieldError
	// Reported says the objects carry their stored status (a cluster's):
	// each listener gets what its status reports and where that differs
	// from the prediction. Manifests' status is not compared: most have
	// none, and every listener would read "nothing reported".
	Reported bool
}

// Build lists the merged listeners of every Gateway of in (of only the
// Gateway "namespace/name" gateway, when set; found says whether it is
// there). The sets in.Errors refuses are Invalid; the others are placed by
// validation.MergedListeners, and in's Namespaces answer allowedListeners
// selectors.
func Build(in *Input, gateway string) (l *Listing, found bool) {
	o := in.Objects
	l = &Listing{Gateways: []Gateway{}, Unattached: []Unattached{}, LeftOut: []LeftOut{}, InputErrors: []read.InputError{}}
	refused := make(map[*gwv1.ListenerSet][]judge.FieldError, len(in.Errors))
	for i, errs := range in.Errors {
		if len(errs) > 0 {
			refused[o.Sets[i]] = errs
		}
	}
	gateways := slices.Clone(o.Gateways)
	slices.SortFunc(gateways, func(a, b *gwv1.Gateway) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	for _, gw := range gateways {
		if gateway != "" && validation.GatewayKey(gw.Namespace, gw.Name) != gateway {
			continue
		}
		found = true
		if reason, ours := airlocks(in.Scope, gw, o); !ours {
			l.LeftOut = append(l.LeftOut, LeftOut{Namespace: gw.Namespace, Name: gw.Name, Reason: reason})
			continue
		}
		sets, _ := o.ListenerSetsOf(gw.Namespace, gw.Name)
		l.Gateways = append(l.Gateways, Gateway{Namespace: gw.Namespace, Name: gw.Name, Listeners: rowsOf(gw, sets, refused, o, in.Tenancy, in.Reported)})
	}
	l.Unattached = unattached(o, gateway)
	return l, found
}

// airlocks tells whether gw is Airlock's to list, and why not: whether a
// ListenerSet attached to it would be judged. The scope decides a
// ListenerSet by its parent Gateway's class; asking it about such a set
// keeps the one decision (validation.Scope.Decide) in one place.
func airlocks(s validation.Scope, gw *gwv1.Gateway, o *validation.Objects) (reason string, ours bool) {
	probe := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: gw.Namespace},
		Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: gwv1.ObjectName(gw.Name)}}}
	if s.Decide(probe, o).Judge {
		return "", true
	}
	class := string(gw.Spec.GatewayClassName)
	if gc, _ := o.GatewayClass(class); gc != nil {
		return fmt.Sprintf("GatewayClass %q names %s", class, gc.Spec.ControllerName), false
	}
	return fmt.Sprintf("GatewayClass %q is unknown, --unknown-parent=%s", class, s.Unknown), false
}

// rowsOf is gw's merged listener list (reported.Predict: the sets not
// refused placed by validation.MergedListeners, each listener of a refused
// set Invalid where its set stands), with each listener's reported status
// beside it with withStatus.
func rowsOf(gw *gwv1.Gateway, sets []*gwv1.ListenerSet, refused map[*gwv1.ListenerSet][]judge.FieldError, o *validation.Objects, t validation.Tenancy, withStatus bool) []Listener {
	predicted := reported.Predict(gw, sets, func(ls *gwv1.ListenerSet) bool { return refused[ls] != nil }, o, &t)
	rows := make([]Listener, len(predicted))
	held := routeClaims{o: o, opts: validation.ClaimOptions{Cluster: o, Routes: o, Classes: o, Tenancy: t}}
	for i := range predicted {
		p := &predicted[i]
		if errs := refused[p.Set]; p.Set != nil && errs != nil {
			rows[i] = invalidListener(p.Set, p.Index, errs)
			if owner, known := t.OwnerOf(p.Set.Namespace, o.NamespaceLabels); known {
				rows[i].Owner = ownerOf(owner)
			}
		} else {
			rows[i] = listenerOf(p.MergedListener)
		}
		rows[i].Precedence, rows[i].AttachedRoutes, rows[i].Routes = p.Precedence, p.AttachedRoutes, p.Routes
		if p.Set != nil && len(p.Routes) > 0 {
			rows[i].RouteClaims = held.of(p.Set, p.Listener, p.Routes)
		}
		if withStatus {
			r := reported.OfGateway(gw, p.Listener)
			if p.Set != nil {
				r = reported.OfListenerSet(p.Set, p.Listener)
			}
			rows[i].Reported = &r
			// The row's own State and Reason: an Invalid row's reason is
			// the listing's, which Compare does not read.
			rows[i].Difference = reported.Compare(reported.Prediction{State: validation.ListenerState(rows[i].State), Reason: rows[i].Reason,
				AttachedRoutes: rows[i].AttachedRoutes}, r)
		}
	}
	return rows
}

// routeClaims finds the names routes claim through a listener that
// another owner holds first (validation.StoredClaimsHeld), each route judged
// once however many listeners it attaches to.
type routeClaims struct {
	o      *validation.Objects
	opts   validation.ClaimOptions
	byName map[string]*gwv1.HTTPRoute
	held   map[*gwv1.HTTPRoute][]validation.HeldClaim
}

// of are the findings of the routes named ("namespace/name") attached
// through listener of ls.
func (r *routeClaims) of(ls *gwv1.ListenerSet, listener gwv1.SectionName, names []string) []string {
	if r.byName == nil {
		r.byName, r.held = map[string]*gwv1.HTTPRoute{}, map[*gwv1.HTTPRoute][]validation.HeldClaim{}
		for _, route := range r.o.Routes {
			if k := route.Namespace + "/" + route.Name; r.byName[k] == nil {
				r.byName[k] = route
			}
		}
	}
	var out []string
	for _, name := range names {
		route := r.byName[name]
		if route == nil {
			continue
		}
		hs, ok := r.held[route]
		if !ok {
			hs = validation.StoredClaimsHeld(route, r.opts)
			r.held[route] = hs
		}
		for _, h := range hs {
			if h.Claim.Set.Namespace == ls.Namespace && h.Claim.Set.Name == ls.Name && h.Claim.Listener == listener {
				out = append(out, "HTTPRoute "+name+": "+h.Detail)
			}
		}
	}
	return out
}

// unattached are the sets of o whose parentRef names no Gateway of o (only
// those naming gateway, when set).
func unattached(o *validation.Objects, gateway string) []Unattached {
	out := []Unattached{}
	for _, ls := range o.Sets {
		u := Unattached{Namespace: ls.Namespace, Name: ls.Name}
		key, ok := validation.ParentKey(ls)
		switch {
		case gateway != "" && key != gateway:
			continue // another Gateway's, or (!ok) nobody's
		case !ok:
			u.Reason = "spec.parentRef names no Gateway"
		default:
			ns, name, _ := strings.Cut(key, "/")
			if gw, _ := o.Gateway(ns, name); gw != nil {
				continue
			}
			u.Reason = fmt.Sprintf("Gateway %s not found", key)
		}
		out = append(out, u)
	}
	return out
}

func listenerOf(r validation.MergedListener) Listener {
	l := Listener{
		Precedence: r.Precedence,
		Source:     sourceOf(r.Source),
		Name:       string(r.Listener),
		Port:       int32(r.Port),
		Protocol:   string(r.Protocol),
		State:      string(r.State),
		Reason:     r.Reason,
		Messages:   make([]string, 0, len(r.Errors)),
		Conditions: []Condition{},
	}
	if r.Hostname != nil {
		h := string(*r.Hostname)
		l.Hostname = &h
	}
	if r.Winner != nil {
		l.Winner = &ListenerRef{Source: sourceOf(r.Winner.Source), Name: string(r.Winner.Listener)}
	}
	if r.Overlaps != nil {
		with := ListenerRef{Source: sourceOf(r.Overlaps.Source), Name: string(r.Overlaps.Listener)}
		l.Conditions = append(l.Conditions, Condition{Type: validation.ConditionOverlappingTLSConfig, Reason: validation.ReasonOverlappingHostnames,
			Message: validation.OverlapMessage(r.Hostname, r.Overlaps.Source.String()+" listener "+string(r.Overlaps.Listener), r.OverlapsHostname, r.Port),
			With:    with})
	}
	for _, e := range r.Errors {
		l.Messages = append(l.Messages, e.Error())
	}
	if r.Owner != nil {
		l.Owner = ownerOf(*r.Owner)
	}
	l.HeldBy, l.OverlappedBy = claimOf(r.HeldBy), claimOf(r.OverlappedBy)
	return l
}

func ownerOf(o validation.Owner) *Owner {
	if o.Tenant {
		return &Owner{Kind: "tenant", Name: o.Name}
	}
	return &Owner{Kind: "namespace", Name: o.Name}
}

func claimOf(c *validation.Claim) *Claim {
	if c == nil {
		return nil
	}
	return &Claim{Listener: ListenerRef{Source: sourceOf(c.Source), Name: string(c.Listener)}, Hostname: string(c.Hostname), Owner: *ownerOf(c.Owner)}
}

// invalidListener is the row of listener i of a set refused for errs.
// REASON is the field and kind of its first error on that listener (else
// of its first error), to keep the column short; the messages have every
// error.
func invalidListener(ls *gwv1.ListenerSet, i int, errs []judge.FieldError) Listener {
	le := &ls.Spec.Listeners[i]
	l := Listener{Source: Source{Kind: validation.SourceListenerSet, Namespace: ls.Namespace, Name: ls.Name},
		Name: string(le.Name), Port: int32(le.Port), Protocol: string(le.Protocol),
		State: string(validation.ListenerInvalid), Messages: make([]string, 0, len(errs)), Conditions: []Condition{}}
	if le.Hostname != nil {
		h := string(*le.Hostname)
		l.Hostname = &h
	}
	for _, e := range errs {
		l.Messages = append(l.Messages, e.Message)
	}
	e := firstErrorOn(errs, field.NewPath("spec", "listeners").Index(i))
	l.Reason = field.ErrorType(e.Type).String()
	if e.Field != "" {
		l.Reason = e.Field + ": " + l.Reason
	}
	return l
}

// firstErrorOn is the first of errs on the listener at p, else the first.
func firstErrorOn(errs []judge.FieldError, p *field.Path) judge.FieldError {
	prefix := p.String()
	for _, e := range errs {
		if e.Field == prefix || strings.HasPrefix(e.Field, prefix+".") {
			return e
		}
	}
	return errs[0]
}

func sourceOf(s validation.ListenerSource) Source {
	return Source{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
}
