package reported

import (
	"slices"

	"github.com/airlock/listenerset-webhook/validation"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Predicted is one listener of a Gateway's merged list with what the
// controller is predicted to report of it: the listeners command's row and
// what the audit compares a stored status with, so that the two cannot
// differ.
type Predicted struct {
	validation.MergedListener
	// Set is the ListenerSet the listener comes from; nil for a Gateway's
	// own listener.
	Set *gwv1.ListenerSet
	// AttachedRoutes is, for a ListenerSet's listener, the attachedRoutes
	// the controller will report: how many of the objects' HTTPRoutes
	// attach to it (validation.Attacher), 0 when it is not Accepted. nil
	// on a Gateway's own listener (routes whose parent is a Gateway are
	// out of scope) and when the objects have no routes. Routes names
	// them, "namespace/name", sorted.
	AttachedRoutes *int
	Routes         []string
}

// Prediction is what p predicts, for Compare.
func (p *Predicted) Prediction() Prediction {
	return Prediction{State: p.State, Reason: p.Reason, AttachedRoutes: p.AttachedRoutes}
}

// Predict is gw's merged listener list: the sets refused does not refuse
// placed by validation.MergedListeners (with tenancy, when set, each
// listener's owner and claims), and every listener of a refused set (one
// its own rules refuse: the webhook would not store it) Invalid where its
// set stands in precedence order, taking no place, numbered with the rest
// (Errors nil: the caller has the errors). o answers allowedListeners'
// namespace selectors and holds the HTTPRoutes.
func Predict(gw *gwv1.Gateway, sets []*gwv1.ListenerSet, refused func(*gwv1.ListenerSet) bool, o *validation.Objects, tenancy *validation.Tenancy) []Predicted {
	admitted := slices.DeleteFunc(slices.Clone(sets), refused)
	rows := validation.MergedListeners(gw, admitted, validation.MergeOptions{Cluster: o, Tenancy: tenancy})
	out := make([]Predicted, 0, len(rows)+len(sets)-len(admitted))
	k := 0
	for ; k < len(rows) && rows[k].Source.Kind == validation.SourceGateway; k++ {
		out = append(out, Predicted{MergedListener: rows[k]})
	}
	// MergedListeners orders the admitted sets so, a listener after another.
	ordered := slices.Clone(sets)
	slices.SortStableFunc(ordered, validation.ComparePrecedence)
	for _, ls := range ordered {
		if !refused(ls) {
			for range ls.Spec.Listeners {
				out = append(out, Predicted{MergedListener: rows[k], Set: ls})
				k++
			}
			continue
		}
		src := validation.ListenerSource{Kind: validation.SourceListenerSet, Namespace: ls.Namespace, Name: ls.Name}
		for i := range ls.Spec.Listeners {
			le := &ls.Spec.Listeners[i]
			out = append(out, Predicted{Set: ls, MergedListener: validation.MergedListener{
				ListenerRef: validation.ListenerRef{Source: src, Listener: le.Name}, Index: i,
				Port: le.Port, Protocol: le.Protocol, Hostname: le.Hostname, State: validation.ListenerInvalid}})
		}
	}
	for i := range out {
		out[i].Precedence = i + 1
	}
	attachRoutes(out, ordered, refused, o)
	return out
}

// attachRoutes sets AttachedRoutes and Routes of the listeners of sets
// (those after the Gateway's own, in the sets' order) from o's HTTPRoutes,
// when o has any: a cluster without routes lists as its manifests without
// them do.
func attachRoutes(out []Predicted, sets []*gwv1.ListenerSet, refused func(*gwv1.ListenerSet) bool, o *validation.Objects) {
	if len(o.Routes) == 0 {
		return
	}
	k := len(out)
	for _, ls := range sets {
		k -= len(ls.Spec.Listeners)
	}
	for _, ls := range sets {
		own := out[k : k+len(ls.Spec.Listeners)]
		k += len(ls.Spec.Listeners)
		byName := map[gwv1.SectionName][]string{}
		if !refused(ls) {
			rs, _ := o.RoutesOf(ls.Namespace, ls.Name)
			a := validation.NewAttacher(ls, o.NamespaceLabels)
			for _, r := range rs {
				var names []gwv1.SectionName
				for i := range r.Spec.ParentRefs {
					ref := &r.Spec.ParentRefs[i]
					if ns, name, ok := validation.NamesListenerSet(r.Namespace, ref); ok && ns == ls.Namespace && name == ls.Name {
						for _, l := range a.Attach(r, ref).Listeners {
							if !slices.Contains(names, l) {
								names = append(names, l)
							}
						}
					}
				}
				for _, l := range names {
					byName[l] = append(byName[l], r.Namespace+"/"+r.Name)
				}
			}
		}
		for i := range own {
			n := 0
			if own[i].State == validation.ListenerAccepted {
				own[i].Routes = byName[own[i].Listener]
				slices.Sort(own[i].Routes)
				n = len(own[i].Routes)
			}
			own[i].AttachedRoutes = &n
		}
	}
}
