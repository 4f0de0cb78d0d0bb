package validationtest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
)

// Sim is kube-apiserver for the sequences, as far as the rules read it: it
// stores what admission admits, stamps creationTimestamp with its clock on
// a create, counts metadata.generation (1 on a create, one more for each
// change of the spec), and keeps metadata.managedFields as server-side apply and
// updates keep them (k8s.io/apiserver's managedfields): per field manager
// the fields it owns, and the time of its last operation that changed the
// object. An apply (OpApply, force) makes "kubectl" own exactly its
// manifest's fields and takes the ones whose value it changes from the other
// managers (a field set to the value it has is shared); an update
// (OpLabel, OpPatchParent) gives its manager the fields it changes, taken
// from the others. A manager that owns nothing is dropped; an operation
// that changes nothing changes no time (and stores nothing, though it is
// judged, as kube-apiserver calls admission before it knows).
type Sim struct {
	Now        time.Time
	gateways   map[string]*gwv1.Gateway
	namespaces map[string]*metav1.PartialObjectMetadata
	sets       map[string]*simSet
	order      []string // set keys, in creation order
	routes     map[string]*gwv1.HTTPRoute
	routeOrder []string // route keys, in creation order
	// RouteJudge judges the HTTPRoute writes (OpApplyRoute); nil: every
	// one admitted.
	RouteJudge RouteJudgeFunc
}

// RouteJudgeFunc judges a create (old nil) or update of an HTTPRoute in
// cluster c (validation.JudgeRoute).
type RouteJudgeFunc func(newRoute, oldRoute *gwv1.HTTPRoute, c *incluster.Objects) Verdict

type simSet struct {
	ls       *gwv1.ListenerSet
	managers map[string]*simManager
}

type simManager struct {
	apply  bool
	fields map[string]bool // seqFields
	at     time.Time
}

// The fields the managers own, as FieldsV1 paths.
var seqFields = map[string][]string{
	"labels/" + SeqRevLabel: {"f:metadata", "f:labels", "f:" + SeqRevLabel},
	"labels/" + SeqTagLabel: {"f:metadata", "f:labels", "f:" + SeqTagLabel},
	"listeners":             {"f:spec", "f:listeners"},
	"parentRef/name":        {"f:spec", "f:parentRef", "f:name"},
	"parentRef/namespace":   {"f:spec", "f:parentRef", "f:namespace"},
}

// SeqT0 is the sequences' clock at the start.
var SeqT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// NewSim is the cluster at the start of a sequence: SeqInitialClasses'
// Gateways, both GatewayClasses, the tenants' Namespaces with
// SeqInitialDeclarations.
func NewSim() *Sim {
	s := &Sim{Now: SeqT0, gateways: map[string]*gwv1.Gateway{}, namespaces: map[string]*metav1.PartialObjectMetadata{}, sets: map[string]*simSet{}, routes: map[string]*gwv1.HTTPRoute{}}
	for key, class := range SeqInitialClasses {
		s.gateways[key] = SeqGateway(key, class, s.Now)
	}
	for _, ns := range append([]string{"infra"}, SeqTenants...) {
		s.namespaces[ns] = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"kubernetes.io/metadata.name": ns}}}
		if d := SeqInitialDeclarations[ns]; d != "" {
			s.namespaces[ns].Annotations = map[string]string{incluster.DefaultAllowedHostnamesAnnotation: d}
		}
	}
	return s
}

// SeqGateway is Gateway key of class, created at t: allowedListeners from
// All, one listener of its own (HTTP on 80, no hostname).
func SeqGateway(key, class string, t time.Time) *gwv1.Gateway {
	ns, name, _ := strings.Cut(key, "/")
	return &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.NewTime(t)},
		Spec: gwv1.GatewaySpec{
			GatewayClassName: gwv1.ObjectName(class),
			AllowedListeners: &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr.To(gwv1.NamespacesFromAll)}},
			Listeners:        []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}},
		},
	}
}

// SeqClasses are the two GatewayClasses.
func SeqClasses() []*gwv1.GatewayClass {
	return []*gwv1.GatewayClass{
		{ObjectMeta: metav1.ObjectMeta{Name: SeqAirlockClass}, Spec: gwv1.GatewayClassSpec{ControllerName: incluster.AirlockControllerName}},
		{ObjectMeta: metav1.ObjectMeta{Name: SeqOtherClass}, Spec: gwv1.GatewayClassSpec{ControllerName: SeqOtherController}},
	}
}

// Cluster is the stored state as the webhook's view has it.
func (s *Sim) Cluster() *incluster.Objects {
	o := &incluster.Objects{Classes: SeqClasses(), Gateways: []*gwv1.Gateway{}, Sets: []*gwv1.ListenerSet{}, Grants: []*gwv1.ReferenceGrant{},
		Secrets: []*metav1.PartialObjectMetadata{}, Routes: []*gwv1.HTTPRoute{}}
	for _, k := range s.routeOrder {
		o.Routes = append(o.Routes, s.routes[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.gateways)) {
		o.Gateways = append(o.Gateways, s.gateways[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.namespaces)) {
		o.Namespaces = append(o.Namespaces, s.namespaces[k])
	}
	for _, k := range s.order {
		o.Sets = append(o.Sets, s.sets[k].ls)
	}
	return o
}

// Sets are the stored ListenerSets, in creation order.
func (s *Sim) Sets() []*gwv1.ListenerSet { return s.Cluster().Sets }

// Namespace is the stored Namespace name.
func (s *Sim) Namespace(name string) *metav1.PartialObjectMetadata { return s.namespaces[name] }

// Gateway is the stored Gateway of key, nil when missing.
func (s *Sim) Gateway(key string) *gwv1.Gateway { return s.gateways[key] }

// Verdict is what admission said to a request, as the model reads it.
type Verdict struct {
	Errors, Warnings []Finding
}

// Finding is one error or warning.
type Finding struct {
	Code          findings.Code
	Path, Message string
}

// Admitted tells whether the request passes: no error.
func (v Verdict) Admitted() bool { return len(v.Errors) == 0 }

// JudgeFunc judges a create (old nil) or update of a ListenerSet in cluster
// c: validation.Judge with the sequences' options, or a webhook.
type JudgeFunc func(newLS, oldLS *gwv1.ListenerSet, c *incluster.Objects) Verdict

// Outcome is what a step did.
type Outcome struct {
	Step Step
	// Skipped: nothing to do (a label, patch or delete of a set that is
	// not stored, a Gateway created that exists or deleted that does not).
	Skipped bool
	// Write: a ListenerSet create or update that reached admission; New
	// is the object judged (with kube-apiserver's metadata), Old the
	// stored one (nil on create), NoOp an update that changes nothing.
	Write    bool
	Old, New *gwv1.ListenerSet
	NoOp     bool
	Verdict  Verdict
	// RouteWrite: an HTTPRoute create or update (OldRoute nil on create),
	// judged by Sim.RouteJudge into Verdict; NoOp as for a set.
	RouteWrite         bool
	OldRoute, NewRoute *gwv1.HTTPRoute
}

// Do runs step: the clock advances, a ListenerSet write is judged by judge
// on the cluster as stored and stored if admitted.
func (s *Sim) Do(step Step, judge JudgeFunc) Outcome {
	s.Now = s.Now.Add(time.Duration(step.Advance) * time.Second)
	out := Outcome{Step: step}
	key := step.Namespace + "/" + step.Name
	stored := s.sets[key]
	switch step.Op {
	case OpDelete:
		if stored == nil {
			out.Skipped = true
			break
		}
		delete(s.sets, key)
		s.order = slices.DeleteFunc(s.order, func(k string) bool { return k == key })
	case OpDeleteGateway:
		out.Skipped = s.gateways[step.Gateway] == nil
		delete(s.gateways, step.Gateway)
	case OpCreateGateway:
		if out.Skipped = s.gateways[step.Gateway] != nil; !out.Skipped {
			s.gateways[step.Gateway] = SeqGateway(step.Gateway, step.Class, s.Now)
		}
	case OpDeleteRoute:
		if out.Skipped = s.routes[key] == nil; !out.Skipped {
			delete(s.routes, key)
			s.routeOrder = slices.DeleteFunc(s.routeOrder, func(k string) bool { return k == key })
		}
	case OpApplyRoute:
		old := s.routes[key]
		next := s.writeRoute(step, old)
		out.RouteWrite, out.OldRoute, out.NewRoute = true, old, next
		out.NoOp = old != nil && next.Generation == old.Generation
		if s.RouteJudge != nil {
			out.Verdict = s.RouteJudge(next, old, s.Cluster())
		}
		if out.Verdict.Admitted() && !out.NoOp {
			if old == nil {
				s.routeOrder = append(s.routeOrder, key)
			}
			s.routes[key] = next
		}
	case OpDeclare:
		ns := s.namespaces[step.Namespace].DeepCopy()
		ns.Annotations = nil
		if step.Value != "" {
			ns.Annotations = map[string]string{incluster.DefaultAllowedHostnamesAnnotation: step.Value}
		}
		s.namespaces[step.Namespace] = ns
	default:
		next, ok := s.write(step, stored)
		if !ok {
			out.Skipped = true
			break
		}
		out.Write, out.New, out.NoOp = true, next.ls, next.noop
		if stored != nil {
			out.Old = stored.ls
		}
		out.Verdict = judge(out.New, out.Old, s.Cluster())
		if out.Verdict.Admitted() && !next.noop {
			if stored == nil {
				s.order = append(s.order, key)
			}
			s.sets[key] = next.set
		}
	}
	return out
}

type simWrite struct {
	set  *simSet
	ls   *gwv1.ListenerSet
	noop bool
}

// write is the object step makes of stored (nil: none), with its metadata;
// ok=false when the step has nothing to write to.
func (s *Sim) write(step Step, stored *simSet) (w simWrite, ok bool) {
	if stored == nil && step.Op != OpApply {
		return w, false
	}
	var next *gwv1.ListenerSet
	if stored == nil {
		next = &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: step.Namespace, Name: step.Name, CreationTimestamp: metav1.NewTime(s.Now), Generation: 1}}
		stored = &simSet{managers: map[string]*simManager{}}
	} else {
		next = stored.ls.DeepCopy()
	}
	managers := map[string]*simManager{}
	for name, m := range stored.managers {
		managers[name] = &simManager{apply: m.apply, fields: maps.Clone(m.fields), at: m.at}
	}
	changed := map[string]bool{}
	set := func(field string, differs bool) {
		if differs {
			changed[field] = true
		}
	}
	switch step.Op {
	case OpApply:
		m := step.Manifest
		rev := fmt.Sprint(m.Rev)
		set("labels/"+SeqRevLabel, next.Labels[SeqRevLabel] != rev)
		if next.Labels == nil {
			next.Labels = map[string]string{}
		}
		next.Labels[SeqRevLabel] = rev
		listeners := SeqListeners(m.Listeners)
		set("listeners", !listenersEqual(next.Spec.Listeners, listeners))
		next.Spec.Listeners = listeners
		ref := SeqParentRef(m.Parent)
		set("parentRef/name", next.Spec.ParentRef.Name != ref.Name)
		set("parentRef/namespace", ptr.Deref(next.Spec.ParentRef.Namespace, "") != *ref.Namespace)
		next.Spec.ParentRef = ref
		owned := map[string]bool{"labels/" + SeqRevLabel: true, "listeners": true, "parentRef/name": true, "parentRef/namespace": true}
		apply := managers["kubectl"]
		if apply == nil {
			apply = &simManager{apply: true}
			managers["kubectl"] = apply
		}
		apply.fields = owned
		if len(changed) > 0 || stored.ls == nil {
			apply.at = s.Now
		}
		take(managers, "kubectl", changed)
	case OpLabel:
		set("labels/"+SeqTagLabel, next.Labels[SeqTagLabel] != step.Value)
		if next.Labels == nil {
			next.Labels = map[string]string{}
		}
		next.Labels[SeqTagLabel] = step.Value
		update(managers, "kubectl-label", changed, s.Now)
	case OpPatchParent:
		ref := SeqParentRef(step.Gateway)
		set("parentRef/name", next.Spec.ParentRef.Name != ref.Name)
		set("parentRef/namespace", ptr.Deref(next.Spec.ParentRef.Namespace, "") != *ref.Namespace)
		next.Spec.ParentRef = ref
		update(managers, "kubectl-patch", changed, s.Now)
	}
	next.ManagedFields = managedFields(managers)
	if stored.ls != nil && (changed["listeners"] || changed["parentRef/name"] || changed["parentRef/namespace"]) {
		next.Generation++ // a change of the spec, as kube-apiserver counts a custom resource's
	}
	return simWrite{set: &simSet{ls: next, managers: managers}, ls: next, noop: len(changed) == 0 && stored.ls != nil}, true
}

// writeRoute is the HTTPRoute step applies over old (nil: a create), with
// kube-apiserver's metadata: creationTimestamp, generation (one more for
// each change of the spec: an HTTPRoute's spec is all the manifest has),
// and the one manager, "kubectl" (Apply), owning spec.parentRefs and
// spec.hostnames, its time that of its last apply that changed them.
func (s *Sim) writeRoute(step Step, old *gwv1.HTTPRoute) *gwv1.HTTPRoute {
	r := step.Route
	ref := gwv1.ParentReference{Group: ptr.To(gwv1.Group(gwv1.GroupName)), Kind: ptr.To(gwv1.Kind("ListenerSet")), Name: gwv1.ObjectName(r.Set)}
	if r.Section != "" {
		ref.SectionName = ptr.To(gwv1.SectionName(r.Section))
	}
	spec := gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{ref}}}
	for _, h := range r.Hostnames {
		spec.Hostnames = append(spec.Hostnames, gwv1.Hostname(h))
	}
	if old != nil && equality.Semantic.DeepEqual(old.Spec, spec) {
		return old.DeepCopy()
	}
	next := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: step.Namespace, Name: step.Name, CreationTimestamp: metav1.NewTime(s.Now), Generation: 1}}
	if old != nil {
		next.ObjectMeta = *old.ObjectMeta.DeepCopy()
		next.Generation++
	}
	next.Spec = spec
	at := metav1.NewTime(s.Now)
	next.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: gwv1.GroupVersion.String(),
		Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:hostnames":{},"f:parentRefs":{}}}`)}}
	return next
}

// Routes are the stored HTTPRoutes, in creation order.
func (s *Sim) Routes() []*gwv1.HTTPRoute { return s.Cluster().Routes }

// take removes the fields changed from every manager but self, and drops a
// manager left with none.
func take(managers map[string]*simManager, self string, changed map[string]bool) {
	for name, m := range managers {
		if name == self {
			continue
		}
		for f := range changed {
			delete(m.fields, f)
		}
		if len(m.fields) == 0 {
			delete(managers, name)
		}
	}
}

// update is an update operation of manager: it owns the fields it
// changes, from now.
func update(managers map[string]*simManager, manager string, changed map[string]bool, now time.Time) {
	if len(changed) == 0 {
		return
	}
	m := managers[manager]
	if m == nil {
		m = &simManager{fields: map[string]bool{}}
		managers[manager] = m
	}
	for f := range changed {
		m.fields[f] = true
	}
	m.at = now
	take(managers, manager, changed)
}

// managedFields renders the managers as kube-apiserver stores them, sorted
// by manager.
func managedFields(managers map[string]*simManager) []metav1.ManagedFieldsEntry {
	var entries []metav1.ManagedFieldsEntry
	for _, name := range slices.Sorted(maps.Keys(managers)) {
		m := managers[name]
		tree := map[string]any{}
		for f := range m.fields {
			node := tree
			for _, p := range seqFields[f] {
				child, _ := node[p].(map[string]any)
				if child == nil {
					child = map[string]any{}
					node[p] = child
				}
				node = child
			}
		}
		raw, err := json.Marshal(tree)
		if err != nil {
			panic(err)
		}
		op := metav1.ManagedFieldsOperationUpdate
		if m.apply {
			op = metav1.ManagedFieldsOperationApply
		}
		at := metav1.NewTime(m.at)
		entries = append(entries, metav1.ManagedFieldsEntry{Manager: name, Operation: op, APIVersion: gwv1.GroupVersion.String(),
			Time: &at, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(string(raw))})
	}
	return entries
}

// SeqParentRef is the parentRef of Gateway key.
func SeqParentRef(key string) gwv1.ParentGatewayReference {
	ns, name, _ := strings.Cut(key, "/")
	return gwv1.ParentGatewayReference{Name: gwv1.ObjectName(name), Namespace: ptr.To(gwv1.Namespace(ns))}
}

// SeqListeners are a manifest's listeners as ListenerEntries.
func SeqListeners(ls []SeqListener) []gwv1.ListenerEntry {
	out := make([]gwv1.ListenerEntry, 0, len(ls))
	for _, l := range ls {
		e := gwv1.ListenerEntry{Name: gwv1.SectionName(l.Name), Port: gwv1.PortNumber(seqPort(l.Name)), Protocol: gwv1.HTTPProtocolType}
		if l.Hostname != "" {
			e.Hostname = ptr.To(gwv1.Hostname(l.Hostname))
		}
		out = append(out, e)
	}
	return out
}

func listenersEqual(a, b []gwv1.ListenerEntry) bool {
	return slices.EqualFunc(a, b, func(x, y gwv1.ListenerEntry) bool {
		return x.Name == y.Name && x.Port == y.Port && x.Protocol == y.Protocol && ptr.Deref(x.Hostname, "") == ptr.Deref(y.Hostname, "")
	})
}

// ListenersOf is ls's listeners as a manifest has them.
func ListenersOf(ls *gwv1.ListenerSet) []SeqListener {
	var out []SeqListener
	for _, l := range ls.Spec.Listeners {
		out = append(out, SeqListener{Name: string(l.Name), Hostname: string(ptr.Deref(l.Hostname, ""))})
	}
	return out
}

// ParentOf is ls's parent Gateway key.
func ParentOf(ls *gwv1.ListenerSet) string {
	return string(ptr.Deref(ls.Spec.ParentRef.Namespace, gwv1.Namespace(ls.Namespace))) + "/" + string(ls.Spec.ParentRef.Name)
}

// VerdictOf is a verdict of errors and warnings as the rules give them.
func VerdictOf(errs field.ErrorList, ws findings.Warnings) Verdict {
	var v Verdict
	for _, e := range errs {
		v.Errors = append(v.Errors, Finding{Code: findings.CodeOf(e), Path: e.Field, Message: e.Detail})
	}
	for _, w := range ws {
		v.Warnings = append(v.Warnings, Finding{Code: w.Code, Path: w.Path, Message: w.Message})
	}
	return v
}

// Describe is what a step's outcome was, for a trace: skipped, or the
// verdict's errors and the warnings of the tenancy rules.
func Describe(out Outcome) string {
	switch {
	case out.Skipped:
		return "  -> skipped"
	case !out.Write && !out.RouteWrite:
		return ""
	}
	var b strings.Builder
	switch {
	case !out.Verdict.Admitted():
		b.WriteString("  -> refused")
	case out.NoOp:
		b.WriteString("  -> admitted, no change")
	default:
		b.WriteString("  -> stored")
	}
	for _, f := range out.Verdict.Errors {
		fmt.Fprintf(&b, "\n       error %s %s: %s", f.Code, f.Path, f.Message)
	}
	for _, f := range out.Verdict.Warnings {
		if f.Code == incluster.CodeHostnameClaimed || f.Code == incluster.CodeHostnameNotDeclared || f.Code == "LS319" || f.Code == "LS320" {
			fmt.Fprintf(&b, "\n       warning %s %s: %s", f.Code, f.Path, f.Message)
		}
	}
	return b.String()
}

// CodeOfMessage is the tenancy code of a message as the webhook's response
// words it (warnings and a denial's causes carry no code): LS316 for a
// first claim, LS314 for an undeclared hostname, "" for any other.
func CodeOfMessage(msg string) findings.Code {
	tail := func(format string) string { return format[strings.LastIndex(format, "%")+2:] }
	switch {
	case strings.Contains(msg, tail(incluster.DetailHostnameClaimed)), strings.Contains(msg, tail(incluster.DetailHostnameContested)):
		return incluster.CodeHostnameClaimed
	case strings.Contains(msg, "is not among the hostnames Namespace"), strings.Contains(msg, tail(incluster.DetailNoHostnameDeclared)):
		return incluster.CodeHostnameNotDeclared
	}
	return ""
}
