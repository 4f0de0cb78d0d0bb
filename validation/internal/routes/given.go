package routes

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Claims given to routes. A route's claims follow the listeners it
// attaches to, so a ListenerSet's write can make them without the route
// being written: the set created (routes may name it before it exists) or
// moved to a Gateway with routes attached, a listener without a hostname
// or with a wildcard added or widened under a stored route. The route's
// own write never judged these claims, so the set's write does: each
// claim the routes make after the write that they did not make before it
// is judged as the route's write would judge a new claim (its Namespace's
// declaration, LS319, an error in every mode; the first claim across
// owners, LS320), at the listener that gives it, naming the route. A claim
// the routes made before the write (the set staying on its Gateway) is
// the route's, judged when it was made: nothing is judged twice.

// DetailGivenToRoute: the route and the route claim's finding.
const DetailGivenToRoute = "HTTPRoute %s/%s, attached here, would claim a name: %s"

// ValidateClaimsGiven judges into v the claims ls's write gives the
// HTTPRoutes attached to it: stored is the object the write replaces on
// the same Gateway (an update that stays, whose routes' claims through it
// were judged before), nil when the write makes ls its Gateway's (a
// create, a move, or any write judged as one: incluster.Arriving). The audit
// judges stored routes by themselves (JudgeRoute, AsStored), so a stored
// set is not asked here.
func ValidateClaimsGiven(ls, stored *gwv1.ListenerSet, o ClaimOptions, v *verdict.Verdict) {
	if o.Cluster == nil || o.Routes == nil || o.AsStored {
		return
	}
	if stored != nil && !givesClaims(stored, ls) {
		return
	}
	attached, known := o.Routes.RoutesOf(ls.Namespace, ls.Name)
	if !known || len(attached) == 0 {
		return
	}
	// deterministic findings whatever order the view answers in
	attached = slices.Clone(attached)
	slices.SortFunc(attached, func(a, b *gwv1.HTTPRoute) int {
		return incluster.CompareNamespacedName(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	after := newClaimer(withSet{o.Cluster, ls, ls.Namespace, ls.Name}, o.Scope, o.Classes, o.Tenancy)
	before := newClaimer(withSet{o.Cluster, stored, ls.Namespace, ls.Name}, o.Scope, o.Classes, o.Tenancy)
	index := listenerIndexes(ls)
	listenersPath := field.NewPath("spec", "listeners")
	mode := o.Tenancy.Mode()
	decls := map[string]incluster.Declaration{}
	for _, r := range attached {
		held := map[string]bool{}
		for _, cl := range before.claims(r) {
			held[claimKey(cl.gatewayKey(), cl.Hostname)] = true
		}
		var given []Claim
		for _, cl := range after.claims(r) {
			if !held[claimKey(cl.gatewayKey(), cl.Hostname)] {
				given = append(given, cl)
			}
		}
		if len(given) == 0 {
			continue
		}
		pathOf := func(cl *Claim) *field.Path {
			if j, ok := index[cl.Listener]; ok && cl.Set == ls {
				return listenersPath.Index(j)
			}
			return listenersPath
		}
		d, ok := decls[r.Namespace]
		if !ok {
			d = incluster.DeclarationOf(r.Namespace, o.Cluster, o.Tenancy)
			decls[r.Namespace] = d
		}
		// A malformed declaration refuses the route's own writes (LS315
		// there); what it declares cannot be read here.
		if d.Declared && len(d.Problems) == 0 {
			for i := range given {
				if cl := &given[i]; !d.Allowed.Allows(cl.Hostname) {
					v.Errs.Add(CodeRouteHostnameNotDeclared.Err(field.Forbidden(pathOf(cl), fmt.Sprintf(DetailGivenToRoute, r.Namespace, r.Name, notDeclared(d, r.Namespace, cl)))))
				}
			}
		}
		if mode == incluster.ClaimOff {
			continue
		}
		// judged as the route's own write judges a new claim
		firstClaims(r, nil, after, o, given, func(*Claim) bool { return false }, func(cl *Claim, x *holder, sure bool) {
			err := CodeRouteHostnameClaimed.Err(field.Forbidden(pathOf(cl), fmt.Sprintf(DetailGivenToRoute, r.Namespace, r.Name, x.detail(string(*cl.Hostname), sure))))
			if mode == incluster.ClaimDeny {
				v.Errs.Add(err)
			} else {
				v.Warnings.Add(findings.Warning{Path: err.Field, Kind: incluster.KindClusterFinding, Code: CodeRouteHostnameClaimed, Message: err.Detail})
			}
		})
	}
}

// givesClaims tells whether updating stored to ls (on the same Gateway)
// can give an attached route a claim: a listener of ls that stored does
// not have with the same attachment fields (attachmentChanged, read the
// other way). An update that leaves them as stored reads no route.
func givesClaims(stored, ls *gwv1.ListenerSet) bool {
	return attachmentChanged(ls, stored, listenerIndexes(stored))
}

// withSet is a view of the cluster in which ListenerSet namespace/name is
// ls (nil: it does not exist): the state a write leaves, or the one
// before it.
type withSet struct {
	views.Cluster
	ls              *gwv1.ListenerSet
	namespace, name string
}

func (w withSet) ListenerSet(namespace, name string) (*gwv1.ListenerSet, bool) {
	if namespace == w.namespace && name == w.name {
		return w.ls, true
	}
	return w.Cluster.ListenerSet(namespace, name)
}
