package judge

import (
	"slices"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

// KindHTTPRoute is Result.Kind of an HTTPRoute's route findings.
const KindHTTPRoute = "HTTPRoute"

// Routes are the route findings of routes, stored ones, against o
// (validation.JudgeRoute, AsStored: the claims a route makes through
// Airlock's listeners, ordered by when each came to its Gateway;
// parentRefs naming a ListenerSet of Airlock's that attach to none of its
// listeners), a Result for each route that has any, in the order of
// routes. A route that attaches to nothing is the route's own status, a
// warning; a claim outside its Namespace's declaration is an error, as is
// one on another owner's name under --first-claim=deny.
func Routes(o *validation.Objects, routes []*gwv1.HTTPRoute, opts Options) []Result {
	return routeResults(o, routes, opts, false)
}

// EveryRoute is Routes with a Result for every route that names a
// ListenerSet, findings or not: what Compare needs to tell a finding
// fixed. DropPassingRoutes takes the ones without findings out again.
func EveryRoute(o *validation.Objects, routes []*gwv1.HTTPRoute, opts Options) []Result {
	return routeResults(o, routes, opts, true)
}

// DropPassingRoutes removes the route results of v that have no finding,
// none introduced, unchanged or fixed.
func DropPassingRoutes(v *Verdict) {
	v.Results = slices.DeleteFunc(v.Results, func(r Result) bool {
		return r.Kind == KindHTTPRoute && len(r.Warnings) == 0 && r.Fixed == nil
	})
}

func routeResults(o *validation.Objects, routes []*gwv1.HTTPRoute, opts Options, every bool) []Result {
	var out []Result
	for _, r := range routes {
		if res, ok := routeResult(o, r, opts, every, true); ok {
			out = append(out, res)
		}
	}
	return out
}

// routeResult judges r, stored (the audit) or as a create (the input's).
func routeResult(o *validation.Objects, r *gwv1.HTTPRoute, opts Options, every, stored bool) (Result, bool) {
	wo := webhookOptions(o, opts)
	wo.AsStored = stored
	v := validation.JudgeRoute(r, nil, wo)
	errs, ws := FieldErrors(v.Errors.List()), v.Warnings.List()
	if len(errs) == 0 && len(ws) == 0 && (!every || len(validation.RouteKeys(r)) == 0) {
		return Result{}, false
	}
	return Result{Kind: KindHTTPRoute, Namespace: r.Namespace, Name: r.Name, Valid: len(errs) == 0, Errors: errs,
		Warnings: validationWarnings(ws)}, true
}

// judgeRoutes adds the route findings of the input's HTTPRoutes, each at
// its place in its file, judged against the sets found valid.
func (v *Verdict) judgeRoutes(opts Options) {
	v.inputRoutes = len(v.routes)
	input := v.Objects.Routes[len(v.Objects.Routes)-len(v.routes):]
	for i, r := range input {
		// Against a cluster every route gets a result, so that Compare can
		// tell its stored findings fixed (DropPassingRoutes).
		res, ok := routeResult(&v.Objects, r, opts, opts.Cluster != nil, false)
		if !ok {
			continue
		}
		o := v.routes[i]
		res.Location, res.pos = o.Location, o.Pos
		res.locate()
		v.Results = append(v.Results, res)
	}
	v.routes = nil
}

// ClusterRoutes are the HTTPRoutes of Objects that the input did not
// hold: Options.Cluster's, less those the input replaced.
func (v *Verdict) ClusterRoutes() []*gwv1.HTTPRoute {
	return v.Objects.Routes[:len(v.Objects.Routes)-v.inputRoutes]
}

// resultKey is a result's identity for Compare: its kind and
// namespace/name (a route and a ListenerSet may share a name).
func resultKey(r *Result) string { return r.Kind + " " + read.Name(r.Namespace, r.Name) }
