package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/routes"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Options carry what the verdict needs besides the objects.
type Options struct {
	// Cluster is the view of the objects around the ListenerSet (the
	// webhook's caches, or the other documents of an offline input); nil
	// judges the object alone.
	Cluster views.Cluster
	// Strict makes the cluster-aware errors (conflicts with the merged
	// listener list, references no ReferenceGrant permits) deny; otherwise
	// they are warnings.
	Strict bool
	// AddedNames are names the list-valued options accept besides the
	// built-in ones (an Airlock Microgateway release newer than this
	// build's lists); nil adds none.
	AddedNames object.AddedNames
	// Scope says which ListenerSets are Airlock's; the zero Scope judges
	// every one. Classes answers its reads (the Cluster, when it has
	// GatewayClasses too, serves both).
	Scope   incluster.Scope
	Classes views.Classes
	// Routes are the HTTPRoutes naming ListenerSets: with them an update
	// or a deletion is told the routes it detaches (warnings only); nil
	// gives no such warning.
	Routes views.Routes
	// Tenancy says who owns the listeners and how claims across owners
	// are judged (tenancy.go); its rules need the Cluster.
	Tenancy incluster.Tenancy
	// AsStored judges a ListenerSet as it is stored (the audit), not as a
	// request: nothing is ratcheted, as on a create, but its hostnames
	// are ordered against other owners' by when each set came to the
	// Gateway (incluster.ArrivalOf), not claimed anew.
	AsStored bool
}

// Validate is the verdict on a ListenerSet: every reason Airlock
// Microgateway cannot serve newLS, each with the path of the offending field,
// and the warnings it earns. oldLS is the stored object on update, nil on
// create. The webhook, the offline command and every other engine call it.
//
// Both objects are judged as defaults.ListenerSet defaults them, so an
// object written against an older CRD (or none, offline) is judged as it
// will be stored; the objects passed in are not changed.
//
// On update, errors ratchet as Kubernetes' CRD validation ratcheting does
// (apiextensions-apiserver's ratcheting.go): by the value at the error's
// own path, never by position. A new listener is paired with the stored
// listener of the same name (spec.listeners is a map list keyed by name),
// an option with the stored option of the same key (tls.options is a map),
// a route selector's label likewise; the atomic lists (certificateRefs,
// allowedRoutes.kinds, matchExpressions) are compared whole, so an error in
// one of their items ratchets only when the whole list is as stored. An
// error that involves several values ratchets when all of them are as
// stored: maximumVersion below minimumVersion both versions, http3's TLS
// 1.3 the protocol and maximumVersion, "tls required" or "forbidden" the
// protocol and tls, "certificateRefs required" (an absent value, which
// Kubernetes correlates through its parent) the whole tls, a conflict
// between listeners the port, protocol (and,
// for a HostnameConflict, hostname) of both, a duplicate name both
// listeners' pairing, the count of listeners the whole list. Such an error
// does not block the update and becomes a warning (KindRatcheted). So
// changing one option of a listener next to a stored invalid one is
// allowed, as are renaming, reordering, inserting or deleting listeners
// around it; changing the invalid value (or a value its error involves),
// or renaming its listener, is judged in full.
//
// Ratcheting keeps only what the stored object held on the same Gateway:
// an update whose parentRef names another Gateway, or of an object last
// written before its Gateway was created, is judged as a create, and its
// hostnames are new claims there (arrives; attaching is claiming); so is
// an update while the Gateway does not exist.
//
// The lists are a bounded report (findings.ErrorReport, findings.WarningReport): the first errors and warnings
// that fit its budget, each value cut to a readable length, then one entry
// that says how many more there were. Judge gives the same report with its
// exact counts.
func Validate(newLS, oldLS *gwv1.ListenerSet, opts Options) (field.ErrorList, findings.Warnings) {
	r := Judge(newLS, oldLS, opts)
	return r.Errors.List(), r.Warnings.List()
}

// Report is a verdict as the rules gave it: its errors and warnings, each a
// bounded report with the exact count of everything the rules found.
type Report struct {
	Errors   findings.ErrorReport
	Warnings findings.WarningReport
	// Scope is the scope's decision; a ListenerSet it does not judge has
	// no errors, and no warning but the decision's note.
	Scope incluster.Decision
}

// Judge is Validate's verdict as a Report, for a caller that needs the
// exact counts (the webhook's log line, the offline command's merge).
func Judge(newLS, oldLS *gwv1.ListenerSet, opts Options) *Report {
	d := opts.Scope.Decide(newLS, opts.Classes)
	if !d.Judge {
		r := &Report{Scope: d}
		if d.Note != nil {
			r.Warnings.Add(*d.Note)
		}
		return r
	}
	how := incluster.Arriving
	switch {
	case oldLS == nil:
		if opts.AsStored {
			how = incluster.AsStored
		}
	case arrives(newLS, oldLS, opts.Cluster):
		// Attaching is claiming: nothing the stored object held
		// elsewhere, or before this Gateway existed, is grandfathered
		// here; the update is judged as a create.
		oldLS = nil
	default:
		how = incluster.Staying
	}
	v := &verdict.Verdict{Ratchet: verdict.NewRatchet(object.Defaulted(newLS), object.Defaulted(oldLS))}
	ls := v.Ratchet.New
	object.ValidateSpec(ls, opts.Cluster, opts.AddedNames, field.NewPath("spec"), v)
	v.EndPhase()
	if opts.Cluster != nil {
		// Whether anything will program the set at all comes first: the
		// class the scope's decision read (with the scope off, the one
		// the view has), warnings only.
		incluster.WarnClass(d.Class, &v.Warnings)
		incluster.ValidateInCluster(ls, opts.Cluster, opts.Strict, opts.Tenancy, how, v)
		// The first claim sees the names routes hold too, and judges
		// the names this write gives the routes attached to the set.
		co := routes.ClaimOptions{Cluster: opts.Cluster, Routes: opts.Routes, Scope: opts.Scope,
			Classes: opts.Classes, Tenancy: opts.Tenancy}
		routes.WarnListenerClaimsOnRoutes(ls, co, how, v)
		co.AsStored = how == incluster.AsStored
		routes.ValidateClaimsGiven(ls, v.Ratchet.Old, co, v)
		v.EndPhase()
		// Warnings only, whatever the mode: a detached route is the
		// route owner's to fix, and the change may be meant.
		routes.WarnDetached(v.Ratchet.Old, ls, opts.Cluster, opts.Routes, &v.Warnings)
	}
	if d.Note != nil && (v.Errs.Total() > 0 || v.Warnings.Total() > 0) {
		// Whose ListenerSet this is could not be told, and Airlock's
		// rules found something: say first why they applied. A set they
		// find nothing in is not told (nothing it would have to act on).
		ws := findings.WarningReport{}
		ws.Add(*d.Note)
		ws.AddReport(&v.Warnings)
		v.Warnings = ws
	}
	return &Report{Errors: v.Errs, Warnings: v.Warnings, Scope: d}
}

// arrives tells whether the update of oldLS to newLS makes the set its
// Gateway's anew, decided from the two objects (and, for the last case,
// the Gateway's creation time): its parentRef names another Gateway than
// the stored one's (from a missing Gateway, another implementation's,
// another of Airlock's, or one that did not admit it: whichever, nothing
// of it was judged on this Gateway), the Gateway does not exist, or the
// stored object was last written before this Gateway was created (parked
// on it while it was missing, or on a former Gateway of the same name,
// perhaps another implementation's, whose verdicts do not carry over).
func arrives(newLS, oldLS *gwv1.ListenerSet, c views.Cluster) bool {
	if !SameGateway(newLS, oldLS) {
		return true
	}
	ns, name, ok := object.ParentOf(newLS)
	if c == nil || !ok {
		return false
	}
	gw, known := c.Gateway(ns, name)
	// A Gateway that does not exist: whether the stored object was ever
	// judged (parked while it was missing) or not (its Gateway was
	// another implementation's, since deleted) the objects cannot tell,
	// and nothing it holds is served; it is judged as it comes.
	return known && (gw == nil || incluster.StoredBefore(oldLS, gw))
}

// JudgeDelete is the verdict on deleting the stored ListenerSet oldLS: never
// an error (a deletion is never refused), and, when opts carry a Cluster
// and Routes, a warning for each listener through which HTTPRoutes
// attach to it, as an update that removed every listener would give. A
// ListenerSet the scope does not judge gets nothing.
func JudgeDelete(oldLS *gwv1.ListenerSet, opts Options) *Report {
	d := opts.Scope.Decide(oldLS, opts.Classes)
	r := &Report{Scope: d}
	if !d.Judge || opts.Cluster == nil {
		return r
	}
	var ws findings.WarningReport
	routes.WarnDetached(object.Defaulted(oldLS), nil, opts.Cluster, opts.Routes, &ws)
	if d.Note != nil && ws.Total() > 0 {
		r.Warnings.Add(*d.Note)
	}
	r.Warnings.AddReport(&ws)
	return r
}

// JudgeRoute is the verdict on an HTTPRoute (oldRoute: the stored one on
// update, nil on create), the one every engine gives: the webhook's
// HTTPRoute handler, the offline commands, the model-based tests. Routes
// are claims (routes/routeclaims.go): a hostname the route serves through
// a listener of an Airlock ListenerSet without a hostname, or a wildcard,
// must be covered by the route's Namespace's declaration (an error in
// every mode, LS319) and is judged by the first claim across owners
// against other owners' listeners and routes on that Gateway
// (opts.Tenancy's mode, LS320); on update a name the stored route held on
// the same Gateway is ratcheted, AsStored orders every claim by arrival.
// Then a warning for each parentRef that names a ListenerSet the scope
// judges and attaches to none of its listeners, at spec.parentRefs[i].
// Routes of other implementations' Gateways get nothing (the scope's
// decision on each parent set). Without opts.Cluster nothing is judged;
// opts.Routes are the other routes (nil: none is a holder).
func JudgeRoute(route, oldRoute *gwv1.HTTPRoute, opts Options) *Report {
	r := &Report{}
	if opts.Cluster == nil {
		return r
	}
	v := &verdict.Verdict{}
	r.Scope.Judge = routes.ValidateRouteClaims(route, oldRoute, routes.ClaimOptions{Cluster: opts.Cluster, Routes: opts.Routes,
		Scope: opts.Scope, Classes: opts.Classes, Tenancy: opts.Tenancy, AsStored: opts.AsStored}, v)
	parents := routes.JudgeParents(route, opts.Cluster, opts.Scope, opts.Classes)
	r.Errors = v.Errs
	r.Warnings.AddReport(parents)
	r.Warnings.AddReport(&v.Warnings)
	return r
}

// SameGateway tells whether two versions of a ListenerSet name the same
// Gateway in their parentRef (or both none): an update that does not is a
// move, judged as a create (attaching is claiming).
func SameGateway(a, b *gwv1.ListenerSet) bool {
	aKey, aOK := incluster.ParentKey(a)
	bKey, bOK := incluster.ParentKey(b)
	return aKey == bKey && aOK == bOK
}
