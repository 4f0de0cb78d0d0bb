package routes

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// The routes an update or a deletion detaches. A listener's attachedRoutes
// exists for "troubleshooting Route attachment and measuring blast
// radius/impact of changes to a Listener" (the ListenerSet reference);
// every implementation reports a detached route afterwards, in the route's
// status. These warnings say it before: for each listener of the stored
// object, the HTTPRoutes attached to the set through it that would attach
// to none of the set's listeners after the change (Attacher.Attach, the one
// decision). A route that still attaches to another listener of the set
// stays Accepted and is not named. A route whose attachment needs a
// namespace's labels the view does not know is not named either: nothing is
// guessed. They are warnings only, never errors, under every mode.

// KindRoutesDetached: HTTPRoutes that an update or a deletion detaches.
const KindRoutesDetached findings.WarningKind = "RoutesDetached"

// Texts of the detach warnings: the count, the listener, the first routes
// (namespace/name) and, past them, "...".
const (
	warnRoutesDetached        = "%s to listener %q (%s); %s no longer attach"
	warnRoutesDetachedRemoved = "%s to listener %q, which the update removes (%s); %s no longer attach"
)

// WarnDetached adds a KindRoutesDetached warning for each listener of
// stored through which routes attach to it and, after the change, to none
// of updated's listeners (updated nil: a deletion). It reads routes only
// when the listeners' attachment fields changed, so an update that leaves
// them as stored costs one comparison.
func WarnDetached(stored, updated *gwv1.ListenerSet, c views.Cluster, rs views.Routes, w *findings.WarningReport) {
	if rs == nil || stored == nil {
		return
	}
	index := listenerIndexes(updated)
	if updated != nil && !attachmentChanged(stored, updated, index) {
		return
	}
	routes, known := rs.RoutesOf(stored.Namespace, stored.Name)
	if !known || len(routes) == 0 {
		return
	}
	before := NewAttacher(stored, c.NamespaceLabels)
	var after *Attacher
	if updated != nil {
		after = NewAttacher(updated, c.NamespaceLabels)
	}
	lost := make(map[gwv1.SectionName]*detached, len(stored.Spec.Listeners))
	for _, r := range routes {
		was, still, unknown := routeAttachment(r, stored, before, after)
		if len(was) == 0 || still || unknown {
			continue
		}
		for _, l := range was {
			d := lost[l]
			if d == nil {
				d = &detached{}
				lost[l] = d
			}
			d.add(r)
		}
	}
	listenersPath := field.NewPath("spec", "listeners")
	for i := range stored.Spec.Listeners {
		name := stored.Spec.Listeners[i].Name
		d := lost[name]
		if d == nil {
			continue
		}
		delete(lost, name) // a duplicate name is reported once
		switch j, kept := index[name]; {
		case updated == nil:
			routeWarn(w, listenersPath.Index(i), KindRoutesDetached, warnRoutesDetached, d.count(), string(name), d.names(), d.pronoun())
		case !kept:
			routeWarn(w, listenersPath, KindRoutesDetached, warnRoutesDetachedRemoved, d.count(), string(name), d.names(), d.pronoun())
		default:
			routeWarn(w, listenersPath.Index(j), KindRoutesDetached, warnRoutesDetached, d.count(), string(name), d.names(), d.pronoun())
		}
	}
}

// routeAttachment is what route's parentRefs naming the set attach to
// before (the stored object's listeners) and whether they still attach to
// any after (nil: none, a deletion); unknown when after cannot be told.
func routeAttachment(r *gwv1.HTTPRoute, ls *gwv1.ListenerSet, before, after *Attacher) (was []gwv1.SectionName, still, unknown bool) {
	for i := range r.Spec.ParentRefs {
		ref := &r.Spec.ParentRefs[i]
		ns, name, ok := incluster.NamesListenerSet(r.Namespace, ref)
		if !ok || ns != ls.Namespace || name != ls.Name {
			continue
		}
		for _, l := range before.attach(r, ref, false).Listeners {
			if !slices.Contains(was, l) {
				was = append(was, l)
			}
		}
		if after != nil {
			a := after.attach(r, ref, false)
			still = still || a.Attached()
			unknown = unknown || !a.Known
		}
	}
	return was, still, unknown && !still
}

// listenerIndexes is the index of each of ls's listeners by name (the
// first of a duplicate name); nil for a nil ls.
func listenerIndexes(ls *gwv1.ListenerSet) map[gwv1.SectionName]int {
	if ls == nil {
		return nil
	}
	index := make(map[gwv1.SectionName]int, len(ls.Spec.Listeners))
	for i := len(ls.Spec.Listeners) - 1; i >= 0; i-- {
		index[ls.Spec.Listeners[i].Name] = i
	}
	return index
}

// attachmentChanged tells whether some listener of stored lost what
// attachment reads: updated (its listeners' index by name) has no listener
// of its name, or that one has another port, protocol, hostname or
// allowedRoutes. Listeners only added detach nothing.
func attachmentChanged(stored, updated *gwv1.ListenerSet, index map[gwv1.SectionName]int) bool {
	for i := range stored.Spec.Listeners {
		o := &stored.Spec.Listeners[i]
		j, ok := index[o.Name]
		if !ok {
			return true
		}
		n := &updated.Spec.Listeners[j]
		if o.Port != n.Port || o.Protocol != n.Protocol || !reflect.DeepEqual(o.Hostname, n.Hostname) || !reflect.DeepEqual(o.AllowedRoutes, n.AllowedRoutes) {
			return true
		}
	}
	return false
}

// detached counts one listener's detached routes and keeps the first
// MaxShownItems by namespace/name, so that the warning is the same
// whatever order the view answers in, in one pass.
type detached struct {
	n     int
	first []*gwv1.HTTPRoute
}

func (d *detached) add(r *gwv1.HTTPRoute) {
	d.n++
	i := len(d.first)
	for i > 0 && incluster.CompareNamespacedName(r.Namespace, r.Name, d.first[i-1].Namespace, d.first[i-1].Name) < 0 {
		i--
	}
	if i >= findings.MaxShownItems {
		return
	}
	if len(d.first) < findings.MaxShownItems {
		d.first = append(d.first, nil)
	}
	copy(d.first[i+1:], d.first[i:])
	d.first[i] = r
}

func (d *detached) count() string {
	if d.n == 1 {
		return "1 HTTPRoute attaches"
	}
	return fmt.Sprintf("%d HTTPRoutes attach", d.n)
}

func (d *detached) pronoun() string {
	if d.n == 1 {
		return "it would"
	}
	return "they would"
}

func (d *detached) names() string {
	var b strings.Builder
	for i, r := range d.first {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.Namespace + "/" + r.Name)
	}
	if d.n > len(d.first) {
		b.WriteString(", ...")
	}
	return b.String()
}
