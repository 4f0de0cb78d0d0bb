package routes

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Routes are claims: an HTTPRoute attached (Attacher, the one decision)
// to a listener of an Airlock ListenerSet that has no hostname, or a
// wildcard, serves the names of its spec.hostnames on that listener's
// Gateway, and a port is no isolation (cookies are shared across the
// ports of a host, RFC 6265 §8.5). So each such name is a claim of the
// route's owner on the Gateway, judged as a listener's hostname is
// (merged/tenancy.go): the route's Namespace's declaration must cover it
// (an error in every mode, LS319), and the first claim across owners
// (--first-claim) judges it against other owners' listeners and routes on
// the Gateway (LS320); a listener's hostname is judged against the
// routes that hold names there too (LS316, WarnListenerClaimsOnRoutes). A
// listener with an exact hostname gives a route no name of its own (the
// listener's is the set's claim), nor does a route without hostnames on
// a wildcard listener; a route without hostnames on a listener without
// one claims every name, which only "*" declares, and no name in
// particular for the first claim (as a listener without a hostname).
//
// Who came first follows when each came to the Gateway (incluster.ArrivalOf,
// RouteArrivalOf: a route's creation, or when its parentRefs were last
// written): a new claim (a create, a hostname or Gateway the stored route
// did not have) is judged against every holder; a held one (an update
// keeping it, the audit) against those that came before it.

// Claim is one name an HTTPRoute claims on a Gateway.
type Claim struct {
	GatewayNamespace, GatewayName string
	// Hostname is the name; nil: every name (a route without hostnames on
	// a listener without one).
	Hostname *gwv1.Hostname
	// Ref is the parentRef's index, Host the hostname's (-1: none).
	Ref, Host int
	// Set and Listener are the ListenerSet and listener it attaches to.
	Set      *gwv1.ListenerSet
	Listener gwv1.SectionName
}

func (c *Claim) gatewayKey() string { return incluster.GatewayKey(c.GatewayNamespace, c.GatewayName) }

// claimer works out routes' claims for one verdict: each ListenerSet's
// Attacher, scope decision and listeners by name once, however many
// routes name it.
type claimer struct {
	c         views.Cluster
	scope     incluster.Scope
	classes   views.Classes
	sets      map[*gwv1.ListenerSet]*claimSet
	owners    map[string]ownerOf
	tenancy   incluster.Tenancy
	gateways  map[string]gatewayOf
	claimsOf  map[*gwv1.HTTPRoute][]Claim
	judgedAny bool
}

type claimSet struct {
	judged    bool
	attacher  *Attacher
	listeners map[gwv1.SectionName]*gwv1.ListenerEntry
}

type ownerOf struct {
	owner incluster.Owner
	known bool
}

type gatewayOf struct {
	gw     *gwv1.Gateway
	known  bool
	admits incluster.AdmitsSet
}

func newClaimer(c views.Cluster, scope incluster.Scope, classes views.Classes, t incluster.Tenancy) *claimer {
	return &claimer{c: c, scope: scope, classes: classes, tenancy: t, sets: map[*gwv1.ListenerSet]*claimSet{},
		owners: map[string]ownerOf{}, gateways: map[string]gatewayOf{}, claimsOf: map[*gwv1.HTTPRoute][]Claim{}}
}

func (k *claimer) set(ls *gwv1.ListenerSet) *claimSet {
	s := k.sets[ls]
	if s == nil {
		s = &claimSet{judged: k.scope.Decide(ls, k.classes).Judge}
		if s.judged {
			s.attacher = NewAttacher(ls, k.c.NamespaceLabels)
			s.listeners = make(map[gwv1.SectionName]*gwv1.ListenerEntry, len(s.attacher.ls.Spec.Listeners))
			for i := range s.attacher.ls.Spec.Listeners {
				l := &s.attacher.ls.Spec.Listeners[i]
				if s.listeners[l.Name] == nil {
					s.listeners[l.Name] = l
				}
			}
		}
		k.sets[ls] = s
	}
	return s
}

func (k *claimer) owner(namespace string) (incluster.Owner, bool) {
	o, ok := k.owners[namespace]
	if !ok {
		o.owner, o.known = k.tenancy.OwnerOf(namespace, k.c.NamespaceLabels)
		k.owners[namespace] = o
	}
	return o.owner, o.known
}

func (k *claimer) gateway(namespace, name string) gatewayOf {
	key := incluster.GatewayKey(namespace, name)
	g, ok := k.gateways[key]
	if !ok {
		g.gw, g.known = k.c.Gateway(namespace, name)
		g.admits = incluster.SetAdmission(g.gw, k.c)
		k.gateways[key] = g
	}
	return g
}

// claims are route's claims, each (Gateway, hostname) once, in the order
// of its parentRefs and hostnames.
func (k *claimer) claims(route *gwv1.HTTPRoute) []Claim {
	if cs, ok := k.claimsOf[route]; ok {
		return cs
	}
	var out []Claim
	// each (Gateway, hostname) once: a route of 64 parentRefs to sets of
	// one Gateway, each of 64 listeners, claims its 16 names once, and a
	// parentRef to a Gateway whose every name is claimed is not attached
	// again
	type claimID struct {
		gateway string
		host    int
	}
	seen := map[claimID]bool{}
	full := map[string]bool{}
	hostnames := route.Spec.Hostnames
	names := max(len(hostnames), 1)
	perGateway := map[string]int{}
	emit := func(gk string, cl Claim) {
		id := claimID{gk, cl.Host}
		if !seen[id] {
			seen[id] = true
			out = append(out, cl)
			if perGateway[gk]++; perGateway[gk] == names {
				full[gk] = true
			}
		}
	}
	for i := range route.Spec.ParentRefs {
		ref := &route.Spec.ParentRefs[i]
		ls, gwNs, gwName, ok := k.parentSet(route.Namespace, ref)
		if !ok {
			continue
		}
		gk := incluster.GatewayKey(gwNs, gwName)
		s := k.set(ls)
		if !s.judged {
			continue
		}
		k.judgedAny = true
		if full[gk] {
			continue
		}
		for _, lname := range s.attacher.attach(route, ref, false).Listeners {
			l := s.listeners[lname]
			if !object.ServedProtocol(l.Protocol) {
				continue
			}
			cl := Claim{GatewayNamespace: gwNs, GatewayName: gwName, Ref: i, Host: -1, Set: ls, Listener: lname}
			switch {
			case l.Hostname == nil || *l.Hostname == "":
				if len(hostnames) == 0 {
					emit(gk, cl)
				}
				for j := range hostnames {
					cl.Hostname, cl.Host = &hostnames[j], j
					emit(gk, cl)
				}
			case strings.HasPrefix(string(*l.Hostname), object.WildcardPrefix):
				for j := range hostnames {
					if object.Covers(string(*l.Hostname), string(hostnames[j])) {
						cl.Hostname, cl.Host = &hostnames[j], j
						emit(gk, cl)
					}
				}
			}
		}
	}
	k.claimsOf[route] = out
	return out
}

// Details of the route claims.
const (
	// DetailRouteNoHostnameDeclared: the Namespace, "*", the annotation
	// and the declaration.
	DetailRouteNoHostnameDeclared = "Namespace %q does not declare %q (%s: %s): an HTTPRoute without hostnames on a listener without one claims every name"
	// DetailClaimedByRoute: the hostname, the one it overlaps, the
	// holder's owner, the route and the listener it is attached through.
	DetailClaimedByRoute = "hostname %q overlaps %q, which %s holds (HTTPRoute %s/%s, through %s): the first claim keeps it"
	// DetailHeldByRoute: the very hostname, held by a route.
	DetailHeldByRoute = "hostname %q is held by %s (HTTPRoute %s/%s, through %s): the first claim keeps it"
	// detailContestedByRoute: as DetailClaimedByRoute, when the stored
	// objects cannot tell which came to the Gateway first.
	detailContestedByRoute = "hostname %q overlaps %q, which %s holds (HTTPRoute %s/%s, through %s): which of the two came to this Gateway first, and keeps it, the stored objects cannot tell"
)

// holder is what holds a name a claim overlaps: a listener of a set, or
// a route's claim.
type holder struct {
	set      *gwv1.ListenerSet
	listener *gwv1.ListenerEntry
	route    *gwv1.HTTPRoute
	claim    *Claim
	hostname string
	owner    incluster.Owner
}

// claimant is the object whose claim is judged.
type claimant struct {
	namespace, name string
	route           bool
	own             incluster.Owner
	// held: judged against the holders that came before it (arrived)
	held    bool
	arrived incluster.Arrival
	// through is the set the claim is made through (a route's), whose
	// own listeners hold nothing against it: its owner admitted the route.
	through *gwv1.ListenerSet
}

// search finds the first holder of a name overlapping h on Gateway
// gwNs/gwName other than who: sure (came before, or who's claim is new)
// or only contested. sets says whether listeners are looked at too.
func (k *claimer) search(who *claimant, gwNs, gwName, h string, routes views.Routes, sets bool) (first *holder, sure bool) {
	g := k.gateway(gwNs, gwName)
	var contested *holder
	consider := func(x *holder, arrival incluster.Arrival, ns, name string) {
		if !who.held {
			if first == nil {
				first = x
			}
			return
		}
		before, known := incluster.ArrivedBeforeByName(ns, name, who.namespace, who.name, arrival, who.arrived)
		switch {
		case known && before && first == nil:
			first = x
		case !known && contested == nil:
			contested = x
		}
	}
	if sets {
		incluster.ListenerClaimKeys(gwNs, gwName, h, func(key string) {
			found, _ := k.c.ListenerSetsAt(key)
			for _, o := range found {
				if (!who.route && o.Namespace == who.namespace && o.Name == who.name) || o == who.through ||
					(who.through != nil && o.Namespace == who.through.Namespace && o.Name == who.through.Name) {
					continue
				}
				if g.gw != nil && !g.admits(o.Namespace) {
					continue
				}
				owner, known := k.owner(o.Namespace)
				if !known || owner == who.own {
					continue
				}
				for j := range o.Spec.Listeners {
					if e := &o.Spec.Listeners[j]; incluster.ListenerClaims(e) && incluster.ClaimsOverlap(h, string(*e.Hostname)) {
						consider(&holder{set: o, listener: e, hostname: string(*e.Hostname), owner: owner}, incluster.ArrivalOf(o), o.Namespace, o.Name)
						break
					}
				}
			}
		})
	}
	if first == nil && routes != nil {
		incluster.RouteOverlapKeys(h, func(key string) {
			found, _ := routes.RoutesAt(key)
			for _, r := range found {
				if who.route && r.Namespace == who.namespace && r.Name == who.name {
					continue
				}
				owner, known := k.owner(r.Namespace)
				if !known || owner == who.own {
					continue
				}
				for _, cl := range k.claims(r) {
					if cl.GatewayNamespace != gwNs || cl.GatewayName != gwName || cl.Hostname == nil || !incluster.ClaimsOverlap(h, string(*cl.Hostname)) {
						continue
					}
					if !who.route && cl.Set.Namespace == who.namespace && cl.Set.Name == who.name {
						continue // through the set judged: its owner admitted the route
					}
					if g.gw != nil && !g.admits(cl.Set.Namespace) {
						continue
					}
					cl := cl
					consider(&holder{route: r, claim: &cl, hostname: string(*cl.Hostname), owner: owner}, incluster.RouteArrivalOf(r), r.Namespace, r.Name)
					break
				}
			}
		})
	}
	if first != nil {
		return first, true
	}
	return contested, false
}

// detail words the finding of h against holder x.
func (x *holder) detail(h string, sure bool) string {
	if x.set != nil {
		by := incluster.HolderName(x.set, x.listener.Name)
		switch {
		case !sure:
			return fmt.Sprintf(incluster.DetailHostnameContested, h, x.hostname, x.owner, by, x.listener.Port)
		case x.hostname == h:
			return fmt.Sprintf(incluster.DetailHostnameHeld, h, x.owner, by, x.listener.Port)
		}
		return fmt.Sprintf(incluster.DetailHostnameClaimed, h, x.hostname, x.owner, by, x.listener.Port)
	}
	through := incluster.HolderName(x.claim.Set, x.claim.Listener)
	switch {
	case !sure:
		return fmt.Sprintf(detailContestedByRoute, h, x.hostname, x.owner, x.route.Namespace, x.route.Name, through)
	case x.hostname == h:
		return fmt.Sprintf(DetailHeldByRoute, h, x.owner, x.route.Namespace, x.route.Name, through)
	}
	return fmt.Sprintf(DetailClaimedByRoute, h, x.hostname, x.owner, x.route.Namespace, x.route.Name, through)
}

// ClaimOptions are what the route claims read: the views, the scope and
// the tenancy settings.
type ClaimOptions struct {
	Cluster views.Cluster
	Routes  views.Routes
	Scope   incluster.Scope
	Classes views.Classes
	Tenancy incluster.Tenancy
	// AsStored judges a stored route (the audit): its claims ordered by
	// arrival, nothing ratcheted.
	AsStored bool
}

// ValidateRouteClaims judges route's claims (old: the stored route on
// update, nil on create) into v: the declaration of its Namespace and the
// first claim across owners. judged tells whether the route names any
// ListenerSet the scope judges.
func ValidateRouteClaims(route, old *gwv1.HTTPRoute, o ClaimOptions, v *verdict.Verdict) (judged bool) {
	if o.Cluster == nil {
		return false
	}
	k := newClaimer(o.Cluster, o.Scope, o.Classes, o.Tenancy)
	claims := k.claims(route)
	if len(claims) == 0 {
		return k.judgedAny
	}
	held := heldClaims(old, k)
	hostnamesPath := field.NewPath("spec", "hostnames")
	pathOf := func(cl *Claim) *field.Path {
		if cl.Host < 0 {
			return hostnamesPath
		}
		return hostnamesPath.Index(cl.Host)
	}
	isHeld := func(cl *Claim) bool { return held[claimKey(cl.gatewayKey(), cl.Hostname)] }

	d := incluster.DeclarationOf(route.Namespace, o.Cluster, o.Tenancy)
	switch {
	case len(d.Problems) > 0:
		v.Errs.Add(d.Malformed(route.Namespace)...)
	case d.Declared:
		done := map[int]bool{}
		for i := range claims {
			cl := &claims[i]
			if done[cl.Host] || d.Allowed.Allows(cl.Hostname) {
				continue
			}
			done[cl.Host] = true
			err := field.Forbidden(pathOf(cl), notDeclared(d, route.Namespace, cl))
			if cl.Hostname == nil {
				err = field.Required(pathOf(cl), err.Detail)
			}
			v.Judge(!o.AsStored && isHeld(cl), CodeRouteHostnameNotDeclared.Err(err))
		}
	}
	v.EndPhase()

	mode := o.Tenancy.Mode()
	if mode == incluster.ClaimOff {
		return true
	}
	firstClaims(route, old, k, o, claims, isHeld, func(cl *Claim, x *holder, sure bool) {
		err := CodeRouteHostnameClaimed.Err(field.Forbidden(pathOf(cl), x.detail(string(*cl.Hostname), sure)))
		if mode == incluster.ClaimDeny {
			v.Judge(!o.AsStored && isHeld(cl), err)
		} else {
			v.Warnings.Add(findings.Warning{Path: err.Field, Kind: incluster.KindClusterFinding, Code: CodeRouteHostnameClaimed, Message: err.Detail})
		}
	})
	v.EndPhase()
	return true
}

// notDeclared is the LS319 detail of claim cl of a route of namespace,
// which declaration d does not cover.
func notDeclared(d incluster.Declaration, namespace string, cl *Claim) string {
	if cl.Hostname == nil {
		return fmt.Sprintf(DetailRouteNoHostnameDeclared, namespace, incluster.AllHostnames, d.Key, d.NotDeclaredValue())
	}
	return d.NotDeclared(namespace, cl.Hostname)
}

// firstClaims hands found each of claims (route's, hostnames only, each
// hostname once) that another owner's listener or route holds first on
// its Gateway: x, sure or contested (holder.detail).
func firstClaims(route, old *gwv1.HTTPRoute, k *claimer, o ClaimOptions, claims []Claim, isHeld func(*Claim) bool, found func(cl *Claim, x *holder, sure bool)) {
	own, known := k.owner(route.Namespace)
	if !known {
		return
	}
	done := map[int]bool{}
	for i := range claims {
		cl := &claims[i]
		if cl.Hostname == nil || done[cl.Host] {
			continue
		}
		who := &claimant{namespace: route.Namespace, name: route.Name, route: true, own: own, through: cl.Set,
			held: o.AsStored || isHeld(cl)}
		if who.held {
			who.arrived = incluster.RouteArrivalOf(route)
			if !o.AsStored && old != nil {
				who.arrived = incluster.RouteArrivalOf(old)
			}
		}
		x, sure := k.search(who, cl.GatewayNamespace, cl.GatewayName, string(*cl.Hostname), o.Routes, true)
		if x == nil {
			continue
		}
		done[cl.Host] = true
		found(cl, x, sure)
	}
}

// HeldClaim is a stored route's claim that another owner holds first on
// its Gateway (the first claim's finding, LS320), for the listeners
// command: the claim and the finding's detail.
type HeldClaim struct {
	Claim  Claim
	Detail string
}

// StoredClaimsHeld are route's claims, judged as stored (AsStored), that
// another owner's listener or route holds first; nil with the rule off.
func StoredClaimsHeld(route *gwv1.HTTPRoute, o ClaimOptions) []HeldClaim {
	if o.Cluster == nil || o.Tenancy.Mode() == incluster.ClaimOff {
		return nil
	}
	o.AsStored = true
	k := newClaimer(o.Cluster, o.Scope, o.Classes, o.Tenancy)
	var out []HeldClaim
	firstClaims(route, nil, k, o, k.claims(route), func(*Claim) bool { return true }, func(cl *Claim, x *holder, sure bool) {
		out = append(out, HeldClaim{Claim: *cl, Detail: x.detail(string(*cl.Hostname), sure)})
	})
	return out
}

// claimKey identifies a claim on a Gateway for heldClaims.
func claimKey(gatewayKey string, h *gwv1.Hostname) string {
	if h == nil {
		return gatewayKey + " *"
	}
	return gatewayKey + " " + string(*h)
}

// heldClaims are the claims the stored route old held, by claimKey: each
// of its hostnames (or every name, without any) on each Gateway its
// parentRefs reach through a ListenerSet, unless it was last written
// before that Gateway existed (never judged there: attaching is
// claiming). Nil on create.
func heldClaims(old *gwv1.HTTPRoute, k *claimer) map[string]bool {
	if old == nil {
		return nil
	}
	held := map[string]bool{}
	for i := range old.Spec.ParentRefs {
		_, gwNs, gwName, ok := k.parentSet(old.Namespace, &old.Spec.ParentRefs[i])
		if !ok {
			continue
		}
		if g := k.gateway(gwNs, gwName); incluster.RouteStoredBefore(old, g.gw) {
			continue
		}
		gk := incluster.GatewayKey(gwNs, gwName)
		if len(old.Spec.Hostnames) == 0 {
			held[claimKey(gk, nil)] = true
		}
		for j := range old.Spec.Hostnames {
			held[claimKey(gk, &old.Spec.Hostnames[j])] = true
		}
	}
	return held
}

// WarnListenerClaimsOnRoutes is the first claim's other half: a listener
// of ls (on its parent Gateway) claiming a hostname that overlaps a name
// another owner's HTTPRoute holds there (through a listener of another
// set) is flagged, LS316, as a listener claiming another owner's
// listener's name is (merged's validateFirstClaims): how says how ls
// stands on its Gateway (incluster.Claiming). A Staying set's hostname the
// stored object held, and every hostname AsStored, is judged against the
// routes that came before the set (a Staying update's stored object is
// v.Ratchet.Old); an error under ClaimDeny (ratcheted when held), a
// warning under ClaimWarn.
func WarnListenerClaimsOnRoutes(ls *gwv1.ListenerSet, o ClaimOptions, how incluster.Claiming, v *verdict.Verdict) {
	if o.Cluster == nil || o.Routes == nil {
		return
	}
	mode := o.Tenancy.Mode()
	if mode == incluster.ClaimOff {
		return
	}
	gwNs, gwName, ok := object.ParentOf(ls)
	if !ok {
		return
	}
	k := newClaimer(o.Cluster, o.Scope, o.Classes, o.Tenancy)
	own, known := k.owner(ls.Namespace)
	if !known {
		return
	}
	g := k.gateway(gwNs, gwName)
	if !g.known {
		return
	}
	stored := v.Ratchet.Old
	listenersPath := field.NewPath("spec", "listeners")
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if !incluster.ListenerClaims(l) {
			continue
		}
		held := how == incluster.AsStored || how == incluster.Staying && stored != nil && hasClaim(stored, *l.Hostname)
		who := &claimant{namespace: ls.Namespace, name: ls.Name, own: own, held: held}
		if held {
			who.arrived = incluster.ArrivalOf(ls)
			if how == incluster.Staying {
				who.arrived = incluster.ArrivalOf(stored)
			}
		}
		h := string(*l.Hostname)
		x, sure := k.search(who, gwNs, gwName, h, o.Routes, false)
		if x == nil {
			continue
		}
		err := incluster.CodeHostnameClaimed.Err(field.Forbidden(listenersPath.Index(i).Child("hostname"), x.detail(h, sure)))
		if mode == incluster.ClaimDeny {
			v.Judge(held && how == incluster.Staying, err)
		} else {
			v.Warnings.Add(findings.Warning{Path: err.Field, Kind: incluster.KindClusterFinding, Code: incluster.CodeHostnameClaimed, Message: err.Detail})
		}
	}
}

// hasClaim tells whether a listener of ls claims hostname h.
func hasClaim(ls *gwv1.ListenerSet, h gwv1.Hostname) bool {
	for i := range ls.Spec.Listeners {
		if e := &ls.Spec.Listeners[i]; incluster.ListenerClaims(e) && *e.Hostname == h {
			return true
		}
	}
	return false
}

// parentSet is the ListenerSet a route of namespace routeNamespace names
// in ref, as the view has it, and the Gateway that set names; ok=false
// when ref names no ListenerSet, the view does not have it, or the set
// names no Gateway.
func (k *claimer) parentSet(routeNamespace string, ref *gwv1.ParentReference) (ls *gwv1.ListenerSet, gwNs, gwName string, ok bool) {
	ns, name, ok := incluster.NamesListenerSet(routeNamespace, ref)
	if !ok {
		return nil, "", "", false
	}
	ls, known := k.c.ListenerSet(ns, name)
	if !known || ls == nil {
		return nil, "", "", false
	}
	gwNs, gwName, ok = object.ParentOf(ls)
	return ls, gwNs, gwName, ok
}
