package incluster

import (
	"encoding/json"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Attaching is claiming: a hostname becomes a set's claim on a Gateway at
// the request that first makes the set that Gateway's, not when the set
// was created. A set parked on a missing Gateway (or on another
// implementation's) and moved later is as new on its Gateway as a create,
// whatever its creation time; ordering claims by creation time alone let
// it take, by age, a name another owner held first (docs/tenancy.md).

// Claiming says how the set under judgment stands on its Gateway for the
// first-claim rule (validateFirstClaims).
type Claiming int

const (
	// Arriving: the request makes the set this Gateway's (a create, an
	// update whose parentRef names another Gateway than the stored one, or
	// one of a set stored before this Gateway existed): every hostname is
	// a new claim, judged against every other owner's set that holds an
	// overlapping one, whatever its age.
	Arriving Claiming = iota
	// Staying: an update of a set that was this Gateway's already: a
	// hostname the stored object claimed is judged against the sets that
	// came to the Gateway before it (ArrivalOf), one it claims anew
	// against every holder.
	Staying
	// AsStored: a stored set judged as it stands (the audit): every
	// hostname against the sets that came to the Gateway before it, and
	// nothing ratcheted.
	AsStored
)

// Arrival is when a stored ListenerSet came to its Gateway, as far as its
// metadata tells: not before From, not after To (both at the second, as
// kube-apiserver writes them).
type Arrival struct{ From, To time.Time }

// unknownTo is the To of a set whose metadata cannot bound its arrival.
var unknownTo = time.Unix(1<<40, 0)

// parentRefField is how a managedFields entry (FieldsV1) owns
// spec.parentRef; no other field of a ListenerSet is named parentRef.
const parentRefField = `"f:parentRef"`

// parentRefsField is how a managedFields entry owns an HTTPRoute's
// spec.parentRefs; the quotes keep it from matching parentRef.
const parentRefsField = `"f:parentRefs"`

// ArrivalOf bounds when ls came to the Gateway its parentRef names, from
// metadata.generation and metadata.managedFields, whose entries (of the
// main resource, not status) say which manager owns which fields and when
// it last changed any of them. A set of generation 1 never had its spec
// changed, parentRef included: it came with its creation. Otherwise To is
// the time of the latest entry that owns spec.parentRef: the move, or a
// later change of another field of the same manager, so a bound. When
// that entry owns spec.parentRef and nothing else (a `kubectl patch` or
// `edit` of the parentRef alone), its time is the move: From is it too.
// Otherwise From is the creation. Without any entry (a manifest, an
// object whose managedFields were cleared) both are the creation: nothing
// says the set moved. With entries but none owning spec.parentRef, To is
// unknown (far in the future), and ArrivedBefore cannot order the set.
//
// Claims are by the Gateway's key (validateFirstClaims judges them while
// the Gateway is missing too), so a set parked on the key before the
// Gateway was created came when it was parked, not with the Gateway.
func ArrivalOf(ls *gwv1.ListenerSet) Arrival {
	return arrivalOf(&ls.ObjectMeta, parentRefField)
}

// RouteArrivalOf is ArrivalOf for an HTTPRoute: when route came to its
// Gateways, from its generation, creation and the managedFields entries
// that own spec.parentRefs (where a route names its parents); routes are
// claims there (package routes, routeclaims.go).
func RouteArrivalOf(route *gwv1.HTTPRoute) Arrival {
	return arrivalOf(&route.ObjectMeta, parentRefsField)
}

// arrivalOf is ArrivalOf of an object whose parents are the field f
// (FieldsV1's "f:name") of its spec.
func arrivalOf(m *metav1.ObjectMeta, f string) Arrival {
	a := Arrival{From: m.CreationTimestamp.Time, To: m.CreationTimestamp.Time}
	w := fieldWritten(m.ManagedFields, f)
	switch {
	case m.Generation == 1:
		// the spec never changed since the object was created: nor did
		// its parents
	case w.owned && w.alone:
		a.From, a.To = later(a.From, w.at), later(a.To, w.at)
	case w.owned:
		a.To = later(a.To, w.at)
	case w.any:
		a.To = unknownTo
	}
	return a
}

// written is what managedFields say of a spec field: the time of the
// latest entry that owns it (owned), whether that entry owns nothing else
// (alone), and whether the main resource has entries at all (any).
type written struct {
	at                time.Time
	owned, alone, any bool
}

// fieldWritten is what managedFields say of the spec field f.
func fieldWritten(entries []metav1.ManagedFieldsEntry, f string) written {
	var w written
	for i := range entries {
		e := &entries[i]
		if e.Subresource != "" {
			continue
		}
		w.any = true
		if e.Time == nil || e.FieldsV1 == nil {
			continue
		}
		raw := e.FieldsV1.GetRawString()
		if !strings.Contains(raw, f) {
			continue
		}
		if !w.owned || e.Time.After(w.at) {
			w.at, w.owned, w.alone = e.Time.Time, true, ownsAlone([]byte(raw), f)
		} else if e.Time.Equal(&metav1.Time{Time: w.at}) {
			w.alone = w.alone && ownsAlone([]byte(raw), f)
		}
	}
	return w
}

// ownsAlone tells whether a FieldsV1 set holds the spec field f and
// nothing else ("." marks a map's own presence, owned by whoever set any
// field in it).
func ownsAlone(raw []byte, f string) bool {
	key := f[1 : len(f)-1]
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return false
	}
	var spec map[string]json.RawMessage
	if len(top) != 1 || top["f:spec"] == nil || json.Unmarshal(top["f:spec"], &spec) != nil {
		return false
	}
	for k := range spec {
		if k != key && k != "." {
			return false
		}
	}
	return true
}

// lastWritten is the latest time anything of ls's main resource was
// written: its managedFields' latest entry, or its creation without any.
func lastWritten(m *metav1.ObjectMeta) time.Time {
	t := m.CreationTimestamp.Time
	for i := range m.ManagedFields {
		if e := &m.ManagedFields[i]; e.Subresource == "" && e.Time != nil {
			t = later(t, e.Time.Time)
		}
	}
	return t
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// arrivedBefore tells whether set a (arrived aa) came to its Gateway
// before set b (arrived ab); known=false when the bounds cannot tell. Of
// two sets whose bounds meet at one second, the one Gateway API's
// precedence puts first by namespace/name came first, as the spec orders
// sets created in the same second.
func arrivedBefore(a, b *gwv1.ListenerSet, aa, ab Arrival) (before, known bool) {
	return ArrivedBeforeByName(a.Namespace, a.Name, b.Namespace, b.Name, aa, ab)
}

// ArrivedBeforeByName is ArrivedBefore of any two claimants named by
// namespace and name (a ListenerSet, an HTTPRoute).
func ArrivedBeforeByName(ans, aname, bns, bname string, aa, ab Arrival) (before, known bool) {
	names := CompareNamespacedName(ans, aname, bns, bname)
	switch {
	case aa.To.Before(ab.From), aa.To.Equal(ab.From) && names < 0:
		return true, true
	case ab.To.Before(aa.From), ab.To.Equal(aa.From) && names > 0:
		return false, true
	}
	return false, false
}

// StoredBefore tells whether the stored object old was written before gw
// existed (its last write before gw's creation): a set parked on a missing
// Gateway, or on a former Gateway of the same name (another
// implementation's, perhaps), was never judged on this one, and an update
// of it is Arriving. A write in the same second as gw's creation counts as
// judged on it.
func StoredBefore(old *gwv1.ListenerSet, gw *gwv1.Gateway) bool {
	return gw != nil && lastWritten(&old.ObjectMeta).Before(gw.CreationTimestamp.Time)
}

// TrimmedManagedFields are the managedFields entries ArrivalOf and
// StoredBefore read, at most two: a cache keeps them instead of the
// object's (which can be most of its size), and ArrivalOf and StoredBefore
// give the same answers from them.
func TrimmedManagedFields(ls *gwv1.ListenerSet) []metav1.ManagedFieldsEntry {
	return trimmedManagedFields(&ls.ObjectMeta, parentRefField)
}

// TrimmedRouteManagedFields is TrimmedManagedFields of an HTTPRoute, for
// RouteArrivalOf.
func TrimmedRouteManagedFields(route *gwv1.HTTPRoute) []metav1.ManagedFieldsEntry {
	return trimmedManagedFields(&route.ObjectMeta, parentRefsField)
}

// trimmedManagedFields keeps of m's managedFields what arrivalOf and
// lastWritten read of the parents' field f.
func trimmedManagedFields(m *metav1.ObjectMeta, f string) []metav1.ManagedFieldsEntry {
	w := fieldWritten(m.ManagedFields, f)
	if !w.any {
		return nil
	}
	entry := func(t time.Time, fields string) metav1.ManagedFieldsEntry {
		at := metav1.NewTime(t)
		return metav1.ManagedFieldsEntry{Operation: metav1.ManagedFieldsOperationUpdate, Time: &at,
			FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	last := lastWritten(m)
	var entries []metav1.ManagedFieldsEntry
	switch {
	case w.owned && w.alone:
		entries = append(entries, entry(w.at, `{"f:spec":{`+f+`:{}}}`))
	case w.owned:
		// another field beside f: not the move alone
		entries = append(entries, entry(w.at, `{"f:spec":{"f:other":{},`+f+`:{}}}`))
	}
	if !w.owned || last.After(w.at) {
		entries = append(entries, entry(last, `{}`))
	}
	return entries
}
