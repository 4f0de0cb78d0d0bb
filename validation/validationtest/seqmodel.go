package validationtest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/routes"
)

// Model is what the history of a sequence says each step must get and what
// the stored state may hold, computed from the steps and from which of them
// were admitted, with its own idea of hostnames (seqOverlap, seqCovers),
// never from the rules' code. What it promises, and what it cannot:
//
// Scope: a set whose parent Gateway is another implementation's (its class
// names another controller) is not judged; every other set is, Airlock's
// and a missing Gateway's alike (the default unknown-parent "judge").
//
// Arriving: a write is judged as a create, every listener in full and every
// hostname a new claim, when it creates the set, moves it to another
// Gateway key, comes after the Gateway was (re-)created since the set's
// last stored write, or updates a set while its Gateway is missing (the
// stored object may have been written on another implementation's Gateway,
// since deleted, and never judged: nothing of it is grandfathered; the
// objects cannot tell, and a parked set serves nothing). Otherwise it
// stays: a listener whose name and hostname are as stored is ratcheted.
//
// Declarations: every listener judged in full gets LS314 exactly when its
// Namespace's declaration does not cover its hostname (a ratcheted one a
// warning); so a stored listener lies outside its declaration only when it
// was last judged in full under a declaration that covered it (narrowed
// since), or never judged (stored where the rules did not apply).
//
// Claims are by Gateway key: they outlive the Gateway's deletion and are
// judged while it is missing. A set's claim of a hostname on a key starts
// at the step that brought the hostname there with the set (a create, a
// move, a new hostname) and lasts while the set keeps a listener of that
// hostname there; one started while the key was another implementation's takes
// effect when the key stops being so (deleted, or re-created as Airlock's),
// as all such claims at once: the model knows no order among them. A new
// claim gets LS316 (under deny: is refused) exactly when another owner's
// stored set on the key holds an overlapping hostname, whatever its age; a
// held hostname of a staying set gets it at least when that holder came to
// the key (in effect) before the set. So on an existing Airlock Gateway an
// owner holds a name another owner claimed there first only when its claim
// was warned when last judged as new (under deny: never, it was refused),
// or was never judged (made on another implementation's Gateway, its set
// not written since the key became Airlock's: only the audit finds it, and
// the set's next write, judged as new).
//
// The audit (AsStored) names the newcomer of every overlapping pair of
// owners whose claims the model orders, and never names the first as a
// newcomer (it may name both as a pair: what the stored metadata cannot
// tell, the model does not ask); of a pair it cannot order it names at least
// one.
//
// The model asks nothing the stored objects cannot say at all: which of two
// claims that took effect at once (on another implementation's Gateway) came
// first, whether a staying set with a held hostname is told of a holder that
// came after it (the metadata bounds arrivals: the rule may name the pair),
// what the audit says of a pair it names as contested.
//
// Not modelled: tenant labels (each namespace is its own owner), Gateways
// that admit only some namespaces (every Gateway admits all), two writes in
// one second (each step advances the clock; the e2e run waits for a second
// of its own for each), two requests judged before either is stored (the
// race docs/tenancy.md describes; in process every write is seen, through
// kube-apiserver a barrier waits for the webhook's view), malformed
// declarations, --strict.
//
// HTTPRoutes (GenerateSequenceWithRoutes, in process and through
// kube-apiserver; the policy comparison writes none; the audit of routes is
// not held): a route names one set of its Namespace (a listener, or all) and
// claims, on the set's Gateway key, the hostnames it serves through a
// listener without a hostname (all) or a wildcard (those it covers
// strictly), while that Gateway is not another implementation's. A route
// write gets LS319 exactly for each claimed hostname its Namespace's
// declaration does not cover, a ratcheted warning when the stored route
// held it (named it, its set on the same key, last written after the
// Gateway was created); a new claim (not so held) gets LS320 (under deny:
// is refused) exactly when another owner's stored set holds an
// overlapping hostname on the key, or another owner's route claims one
// there; a held claim is not asked at the write. A set's new claim gets
// LS316 also when another owner's route claims an overlapping name there.
// A set's write that gives its routes claims they did not make before (the
// set created or moved under them, a listener without a hostname or a
// wildcard added) gets LS319 and LS320 for those claims as the route's
// write would, naming the route (givenClaims). In the first claim's
// invariant a route's claims are its owner's holdings, each judged as new
// by the write that made it, the route's or its set's; only one made on
// another implementation's Gateway was never judged (Stats count them).
type Model struct {
	Mode   incluster.ClaimMode
	step   int
	epochs map[string][]seqEpoch
	decl   map[string]string
	sets   map[string]*modelSet
	routes map[string]*modelRoute
	// Stats counts what the steps reached, for the test to log and to
	// hold the generator to its space.
	Stats map[string]int
}

// seqEpoch: from step from on, the key's Gateway is of class ("": missing).
type seqEpoch struct {
	from  int
	class string
}

type modelSet struct {
	ns, name, parent string
	listeners        []SeqListener
	arrived          int  // the step it came to parent
	lastWrite        int  // the step of its last stored write
	judged           bool // that write was judged
	claims           map[string]*modelClaim
	records          map[string]*listenerRecord // by listener name
}

// modelClaim is a set's claim of a hostname on its parent.
type modelClaim struct {
	start int
	// judgedNew is the last step that judged it as a new claim (-1:
	// none), warned whether that step warned it (LS316).
	judgedNew int
	warned    bool
}

// listenerRecord is a stored listener's last judgment in full.
type listenerRecord struct {
	hostname string
	judged   bool
	under    string // the declaration then ("": none)
	step     int
}

// NewModel is the model at the start of a sequence (NewSim's state).
func NewModel(mode incluster.ClaimMode) *Model {
	m := &Model{Mode: mode, epochs: map[string][]seqEpoch{}, decl: map[string]string{}, sets: map[string]*modelSet{}, routes: map[string]*modelRoute{}, Stats: map[string]int{}}
	for _, k := range SeqGatewayKeys {
		m.epochs[k] = []seqEpoch{{0, SeqInitialClasses[k]}}
	}
	for ns, d := range SeqInitialDeclarations {
		m.decl[ns] = d
	}
	return m
}

// seqCovers tells whether declaration d (valid, not empty) covers hostname
// h ("" none): "*" everything, an entry itself, a wildcard entry every
// name and wildcard below it.
func seqCovers(d, h string) bool {
	for _, e := range strings.Split(d, ",") {
		switch {
		case e == "*", e == h && h != "":
			return true
		case h != "" && strings.HasPrefix(e, "*.") && strings.HasSuffix(h, e[1:]) && len(h) > len(e)-1:
			return true
		}
	}
	return false
}

// seqOverlap tells whether two hostnames (not "") match a name in common.
func seqOverlap(a, b string) bool {
	under := func(w, h string) bool {
		return strings.HasPrefix(w, "*.") && strings.HasSuffix(h, w[1:]) && len(h) > len(w)-1
	}
	return a == b || under(a, b) || under(b, a)
}

func (m *Model) class(key string) string { e := m.epochs[key]; return e[len(e)-1].class }

// created is the step the key's Gateway was created (-1 missing or there
// from the start).
func (m *Model) created(key string) int {
	e := m.epochs[key]
	if e[len(e)-1].class == "" {
		return -1
	}
	return e[len(e)-1].from
}

// effective is the step a claim started at step on key takes effect: that
// step, or, made while the key was another implementation's, the first step
// it was not (math.MaxInt: not yet).
func (m *Model) effective(key string, step int) int {
	ep := m.epochs[key]
	i := len(ep) - 1
	for i > 0 && ep[i].from > step {
		i--
	}
	for j := i; j < len(ep); j++ {
		if ep[j].class != SeqOtherClass {
			if j == i {
				return step
			}
			return ep[j].from
		}
	}
	return math.MaxInt
}

// Expectation is what the model says a step must get.
type Expectation struct {
	Judged, Arriving bool
	// Why says why the write arrives or stays ("arriving: a create",
	// "arriving: moved from <key>", "arriving: the Gateway created ...",
	// "arriving: the stored object ... not apply", "staying").
	Why string
	// per listener index of the new object: LS314 as an error, as a
	// ratcheted warning
	notDeclared, ratchetedUndeclared map[int]bool
	// newClaims: listener index → LS316 expected (true) or not (false);
	// heldMust: a held hostname another owner had before the set
	newClaims map[int]bool
	heldMust  map[int]string // what came first, and when
	// Route: an HTTPRoute write (the maps are by hostname index);
	// routeHeld: the hostnames it claims that the stored route held
	Route        bool
	routeHeld    map[int]bool
	routeGateway string
	// given: a set write's claims it gives attached routes (by
	// givenKey), each with LS319 (not declared) and LS320 (held first by
	// another owner) expected or not
	given map[string]givenClaim
}

// givenClaim is a claim a set's write gives an attached route: what the
// write must say of it.
type givenClaim struct {
	ns, route, hostname string
	notDeclared, held   bool
}

func givenKey(ns, route, h string) string { return ns + "/" + route + " " + h }

// givenPrefix is how a finding about a claim given to route ns/name
// begins (routes.DetailGivenToRoute).
func givenPrefix(ns, name, h string) string {
	return fmt.Sprintf(routes.DetailGivenToRoute, ns, name, fmt.Sprintf("hostname %q", h))
}

func hostPath(i int) string {
	return field.NewPath("spec", "listeners").Index(i).Child("hostname").String()
}

func setKey(ns, name string) string { return ns + "/" + name }

// Expect is what step must get, from the history so far. Call it before
// Sim.Do, then Check with the outcome.
func (m *Model) Expect(step Step) Expectation {
	m.step++
	var x Expectation
	if step.Op == OpApplyRoute {
		return m.routeExpect(step)
	}
	old := m.sets[setKey(step.Namespace, step.Name)]
	var parent string
	var listeners []SeqListener
	switch step.Op {
	case OpApply:
		parent, listeners = step.Manifest.Parent, step.Manifest.Listeners
	case OpLabel, OpPatchParent:
		if old == nil {
			return x
		}
		parent, listeners = old.parent, old.listeners
		if step.Op == OpPatchParent {
			parent = step.Gateway
		}
	default:
		return x
	}
	x.Judged = m.class(parent) != SeqOtherClass
	if !x.Judged {
		return x
	}
	switch {
	case old == nil:
		x.Why = "arriving: a create"
	case old.parent != parent:
		x.Why = "arriving: moved from " + old.parent
	case m.created(parent) > old.lastWrite:
		x.Why = fmt.Sprintf("arriving: the Gateway created at step %d, after the set's last write (step %d)", m.created(parent), old.lastWrite)
	case m.class(parent) == "":
		x.Why = "arriving: the Gateway is missing"
		if !old.judged {
			x.Why += fmt.Sprintf(" (the stored object, step %d, was written where the rules did not apply)", old.lastWrite)
		}
	default:
		x.Why = "staying"
	}
	x.Arriving = x.Why != "staying"
	x.notDeclared, x.ratchetedUndeclared, x.newClaims, x.heldMust = map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]string{}
	stored := func(l SeqListener) bool {
		return old != nil && slices.ContainsFunc(old.listeners, func(o SeqListener) bool { return o.Name == l.Name && o.Hostname == l.Hostname })
	}
	for i, l := range listeners {
		if d := m.decl[step.Namespace]; d != "" && !seqCovers(d, l.Hostname) {
			if !x.Arriving && stored(l) {
				x.ratchetedUndeclared[i] = true
			} else {
				x.notDeclared[i] = true
			}
		}
		if l.Hostname == "" {
			continue
		}
		holders := m.holders(parent, step.Namespace, step.Name, l.Hostname)
		if x.Arriving || old.claims[l.Hostname] == nil {
			x.newClaims[i] = len(holders)+len(m.routeHolders(parent, step.Namespace, l.Hostname)) > 0
			continue
		}
		mine := m.effective(parent, old.arrived)
		for _, h := range holders {
			if theirs := m.effective(parent, h.arrived); theirs < mine {
				x.heldMust[i] = fmt.Sprintf("%s/%s came at step %d (in effect %d), this set at step %d (in effect %d)", h.ns, h.name, h.arrived, theirs, old.arrived, mine)
				if c := m.created(parent); c > h.arrived && c > old.arrived {
					x.heldMust[i] += fmt.Sprintf(", both before the Gateway was created (step %d)", c)
				}
			}
		}
	}
	x.given = m.givenClaims(step.Namespace, step.Name, old, &modelSet{ns: step.Namespace, name: step.Name, parent: parent, listeners: listeners}, x.Arriving)
	return x
}

// givenClaims are the claims the write of set ns/name gives the stored
// routes attached to it (in the model: routes of ns naming it): those
// they make through next that they did not make through old (every one
// when the write arrives), each with what the rules must say of it as a
// route's new claim.
func (m *Model) givenClaims(ns, name string, old, next *modelSet, arriving bool) map[string]givenClaim {
	out := map[string]givenClaim{}
	for _, rt := range m.routes {
		if rt.ns != ns || rt.r.Set != name {
			continue
		}
		gk, hosts := routeClaimsThrough(next, rt.r)
		var before []int
		if old != nil && !arriving {
			_, before = routeClaimsThrough(old, rt.r)
		}
		for _, j := range hosts {
			if slices.Contains(before, j) {
				continue
			}
			h := rt.r.Hostnames[j]
			d := m.decl[rt.ns]
			out[givenKey(rt.ns, rt.name, h)] = givenClaim{ns: rt.ns, route: rt.name, hostname: h,
				notDeclared: d != "" && !seqCovers(d, h),
				held:        len(m.holders(gk, rt.ns, "", h))+len(m.routeHolders(gk, rt.ns, h)) > 0}
		}
	}
	return out
}

// holders are the stored sets of other owners on key holding a hostname
// that overlaps h.
func (m *Model) holders(key, ns, name, h string) []*modelSet {
	var out []*modelSet
	for _, s := range m.sets {
		if s.parent != key || s.ns == ns {
			continue
		}
		if slices.ContainsFunc(s.listeners, func(l SeqListener) bool { return l.Hostname != "" && seqOverlap(l.Hostname, h) }) {
			out = append(out, s)
		}
	}
	return out
}

// Check holds the outcome of a step to its expectation, records it in the
// history and returns what does not hold.
func (m *Model) Check(x Expectation, out Outcome) []string {
	var bad []string
	switch {
	case out.RouteWrite:
		bad = m.checkRouteVerdict(x, out)
		m.count(x, out)
	case out.Write:
		bad = m.checkVerdict(x, out)
		m.count(x, out)
	}
	m.record(x, out)
	m.pruneRouteClaims(x, out)
	return bad
}

func (m *Model) checkVerdict(x Expectation, out Outcome) []string {
	var bad []string
	v := out.Verdict
	found := func(list []Finding, code string, i int) *Finding {
		for j := range list {
			if string(list[j].Code) == code && list[j].Path == hostPath(i) {
				return &list[j]
			}
		}
		return nil
	}
	if !x.Judged {
		for _, f := range append(slices.Clone(v.Errors), v.Warnings...) {
			if f.Code == incluster.CodeHostnameNotDeclared || f.Code == incluster.CodeHostnameClaimed || f.Code == incluster.CodeDeclarationMalformed {
				bad = append(bad, fmt.Sprintf("not Airlock's to judge, yet %s %s: %s", f.Code, f.Path, f.Message))
			}
		}
		if len(v.Errors) > 0 {
			bad = append(bad, fmt.Sprintf("not Airlock's to judge, yet refused: %v", v.Errors))
		}
		return bad
	}
	for _, e := range v.Errors {
		if e.Code != incluster.CodeHostnameNotDeclared && string(e.Code) != seqRouteNotDeclared &&
			!((e.Code == incluster.CodeHostnameClaimed || string(e.Code) == seqRouteClaimed) && m.Mode == incluster.ClaimDeny) {
			bad = append(bad, fmt.Sprintf("an error the sequences do not provoke: %s %s: %s", e.Code, e.Path, e.Message))
		}
	}
	bad = append(bad, m.checkGiven(x, v)...)
	how := x.Why
	for i := range 3 {
		_, listed := x.notDeclared[i]
		got := found(v.Errors, string(incluster.CodeHostnameNotDeclared), i) != nil
		if got != listed {
			bad = append(bad, fmt.Sprintf("%s (%s): LS314 error %v, the model wants %v", hostPath(i), how, got, listed))
		}
		if x.ratchetedUndeclared[i] && found(v.Warnings, string(incluster.CodeHostnameNotDeclared), i) == nil {
			bad = append(bad, fmt.Sprintf("%s (%s): no ratcheted LS314 warning for a stored listener outside its declaration", hostPath(i), how))
		}
		inErrors := found(v.Errors, string(incluster.CodeHostnameClaimed), i)
		inWarnings := found(v.Warnings, string(incluster.CodeHostnameClaimed), i)
		if want, isNew := x.newClaims[i]; isNew {
			got, other := inWarnings, inErrors
			if m.Mode == incluster.ClaimDeny {
				got, other = inErrors, inWarnings
			}
			if (got != nil) != want || other != nil {
				bad = append(bad, fmt.Sprintf("%s (%s, a new claim, %s): LS316 %v (%v), the model wants %v", hostPath(i), how, m.Mode, got != nil, firstOf(got, other), want))
			}
		}
		if first := x.heldMust[i]; first != "" && (inWarnings == nil || inErrors != nil) {
			bad = append(bad, fmt.Sprintf("%s (%s, held, %s): another owner came to the Gateway first (%s), yet LS316 warning %v, error %v",
				hostPath(i), how, m.Mode, first, inWarnings != nil, inErrors != nil))
		}
	}
	return bad
}

// count adds a judged write to Stats: by why it was judged so, and what
// the tenancy rules said to it.
func (m *Model) count(x Expectation, out Outcome) {
	if !x.Judged {
		if x.Route {
			m.Stats["route: claims nothing judged"]++
			return
		}
		m.Stats["not judged (another implementation's)"]++
		return
	}
	why, _, _ := strings.Cut(x.Why, " (")
	why, _, _ = strings.Cut(why, " at step")
	m.Stats[why]++
	codes := map[string]bool{}
	for _, f := range append(slices.Clone(out.Verdict.Errors), out.Verdict.Warnings...) {
		if f.Code == incluster.CodeHostnameClaimed || f.Code == incluster.CodeHostnameNotDeclared || string(f.Code) == seqRouteClaimed || string(f.Code) == seqRouteNotDeclared {
			codes[string(f.Code)] = true
		}
	}
	for c := range codes {
		m.Stats[why+", "+c]++
		if out.Step.Pattern != "" && x.Arriving {
			m.Stats["pattern "+out.Step.Pattern+", arriving, "+c]++
		}
	}
}

func firstOf(fs ...*Finding) string {
	for _, f := range fs {
		if f != nil {
			return f.Message
		}
	}
	return "none"
}

// record adds the outcome to the history.
func (m *Model) record(x Expectation, out Outcome) {
	st := out.Step
	if out.Skipped {
		return
	}
	key := setKey(st.Namespace, st.Name)
	switch st.Op {
	case OpDeleteGateway:
		m.epochs[st.Gateway] = append(m.epochs[st.Gateway], seqEpoch{m.step, ""})
	case OpCreateGateway:
		m.epochs[st.Gateway] = append(m.epochs[st.Gateway], seqEpoch{m.step, st.Class})
	case OpDeclare:
		m.decl[st.Namespace] = st.Value
	case OpDelete:
		delete(m.sets, key)
	case OpDeleteRoute:
		delete(m.routes, key)
	case OpApplyRoute:
		if out.Verdict.Admitted() {
			m.recordRoute(x, out)
		}
	default:
		if !out.Write || out.NoOp || !out.Verdict.Admitted() {
			return
		}
		old := m.sets[key]
		s := &modelSet{ns: st.Namespace, name: st.Name, parent: ParentOf(out.New), listeners: ListenersOf(out.New), lastWrite: m.step, judged: x.Judged,
			claims: map[string]*modelClaim{}, records: map[string]*listenerRecord{}}
		moved := old == nil || old.parent != s.parent
		s.arrived = m.step
		if !moved {
			s.arrived = old.arrived
		}
		warned := func(h string) bool {
			for i, l := range s.listeners {
				if l.Hostname == h && slices.ContainsFunc(out.Verdict.Warnings, func(f Finding) bool { return f.Code == incluster.CodeHostnameClaimed && f.Path == hostPath(i) }) {
					return true
				}
			}
			return false
		}
		for _, l := range s.listeners {
			if l.Hostname != "" && s.claims[l.Hostname] == nil {
				c := &modelClaim{start: m.step, judgedNew: -1}
				if !moved && old.claims[l.Hostname] != nil {
					prev := *old.claims[l.Hostname]
					c = &prev
				}
				if x.Judged && (x.Arriving || c.start == m.step) {
					c.judgedNew, c.warned = m.step, warned(l.Hostname)
				}
				s.claims[l.Hostname] = c
			}
			r := &listenerRecord{hostname: l.Hostname, judged: x.Judged, under: m.decl[st.Namespace], step: m.step}
			if old != nil && !x.Arriving {
				if o := old.records[l.Name]; o != nil && o.hostname == l.Hostname {
					r = o
				}
			}
			s.records[l.Name] = r
		}
		m.sets[key] = s
	}
}

// Invariants holds the stored ListenerSets to the history: the model's
// copy is what is stored, no owner holds a name another claimed first on an
// Airlock Gateway unless excused, no listener lies outside its declaration
// unless ratcheting rightly kept it.
func (m *Model) Invariants(stored []*gwv1.ListenerSet) []string {
	var bad []string
	if len(stored) != len(m.sets) {
		bad = append(bad, fmt.Sprintf("the model has %d sets, the cluster %d", len(m.sets), len(stored)))
	}
	for _, ls := range stored {
		s := m.sets[setKey(ls.Namespace, ls.Name)]
		if s == nil || s.parent != ParentOf(ls) || !slices.Equal(s.listeners, ListenersOf(ls)) {
			bad = append(bad, fmt.Sprintf("the model's %s/%s is not the stored one", ls.Namespace, ls.Name))
			return bad
		}
	}
	for _, f := range m.firstClaims(false) {
		c := f.newcomer.claims[f.hn]
		switch {
		case c.judgedNew < 0:
			m.Stats["invariant: a name held over the first claim, never judged"]++
		case c.warned:
			m.Stats["invariant: a name held over the first claim, warned"]++
		}
		if !(c.judgedNew < 0 || m.Mode == incluster.ClaimWarn && c.warned) {
			bad = append(bad, fmt.Sprintf("%s/%s holds %s on %s (claimed at step %d, judged as new at step %d, warned %v) over %s/%s's %s, claimed first (step %d)",
				f.newcomer.ns, f.newcomer.name, f.hn, f.newcomer.parent, c.start, c.judgedNew, c.warned, f.first.ns, f.first.name, f.hf, f.first.claims[f.hf].start))
		}
	}
	for _, s := range m.sets {
		d := m.decl[s.ns]
		for _, l := range s.listeners {
			if d == "" || seqCovers(d, l.Hostname) {
				continue
			}
			if r := s.records[l.Name]; r.judged && r.under != "" && !seqCovers(r.under, l.Hostname) {
				bad = append(bad, fmt.Sprintf("%s/%s listener %s %q lies outside %s's declaration %q, judged in full at step %d under %q",
					s.ns, s.name, l.Name, l.Hostname, s.ns, d, r.step, r.under))
			}
		}
	}
	return bad
}

// claimPair: two owners' overlapping claims on one Gateway key; first's
// took effect before newcomer's, or ordered=false when the model cannot
// order them.
type claimPair struct {
	first, newcomer *modelSet
	hf, hn          string
	ordered         bool
}

// firstClaims are the overlapping pairs of claims of different owners on
// each key whose Gateway is Airlock's (and, with missing, on each missing
// one too); unordered pairs only with all.
func (m *Model) firstClaims(all bool) []claimPair {
	var out []claimPair
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m.sets {
			if !yield(k) {
				return
			}
		}
	})
	for _, ka := range keys {
		a := m.sets[ka]
		class := m.class(a.parent)
		if class != SeqAirlockClass && !(all && class == "") {
			continue
		}
		for _, kb := range keys {
			b := m.sets[kb]
			if b.parent != a.parent || b.ns == a.ns {
				continue
			}
			for ha, ca := range a.claims {
				for hb, cb := range b.claims {
					if !seqOverlap(ha, hb) {
						continue
					}
					ea, eb := m.effective(a.parent, ca.start), m.effective(b.parent, cb.start)
					switch {
					case ea < eb:
						out = append(out, claimPair{a, b, ha, hb, true})
					case ea == eb && all && ka < kb:
						out = append(out, claimPair{a, b, ha, hb, false})
					}
				}
			}
		}
	}
	return out
}

// AuditFunc judges a stored ListenerSet as the audit does (AsStored) in
// the stored cluster.
type AuditFunc func(ls *gwv1.ListenerSet, c *incluster.Objects) Verdict

// Audit holds the audit of every stored set to the history: it names the
// newcomer of each pair the model orders and never the first as a
// newcomer, at least one of each pair it cannot order, and every listener
// outside its declaration (LS314).
func (m *Model) Audit(c *incluster.Objects, audit AuditFunc) []string {
	var bad []string
	verdicts := map[string]Verdict{}
	for _, ls := range c.Sets {
		verdicts[setKey(ls.Namespace, ls.Name)] = audit(ls, c)
	}
	claimed := func(s *modelSet, h string) []Finding {
		v := verdicts[setKey(s.ns, s.name)]
		var out []Finding
		for i, l := range s.listeners {
			if l.Hostname != h {
				continue
			}
			for _, f := range append(slices.Clone(v.Errors), v.Warnings...) {
				if f.Code == incluster.CodeHostnameClaimed && f.Path == hostPath(i) {
					out = append(out, f)
				}
			}
		}
		return out
	}
	for _, p := range m.firstClaims(true) {
		newcomer, first := claimed(p.newcomer, p.hn), claimed(p.first, p.hf)
		pair := fmt.Sprintf("%s/%s's %s (step %d) and %s/%s's %s (step %d) on %s", p.first.ns, p.first.name, p.hf, p.first.claims[p.hf].start,
			p.newcomer.ns, p.newcomer.name, p.hn, p.newcomer.claims[p.hn].start, p.first.parent)
		if c := m.created(p.first.parent); c > p.first.arrived && c > p.newcomer.arrived {
			pair += fmt.Sprintf(", both sets there before the Gateway was created (step %d)", c)
		}
		if !p.ordered {
			if len(newcomer)+len(first) == 0 {
				bad = append(bad, "audit: names neither of "+pair)
			}
			continue
		}
		if len(newcomer) == 0 {
			bad = append(bad, "audit: does not name the newcomer of "+pair)
		}
		for _, f := range first {
			if strings.Contains(f.Message, "("+p.newcomer.ns+"/"+p.newcomer.name+" listener ") && !strings.Contains(f.Message, "cannot tell") {
				bad = append(bad, fmt.Sprintf("audit: names the first of %s as the newcomer: %s: %s", pair, f.Path, f.Message))
			}
		}
	}
	for _, ls := range c.Sets {
		s := m.sets[setKey(ls.Namespace, ls.Name)]
		if s == nil || m.class(s.parent) == SeqOtherClass {
			continue
		}
		d := m.decl[s.ns]
		for i, l := range s.listeners {
			want := d != "" && !seqCovers(d, l.Hostname)
			got := slices.ContainsFunc(verdicts[setKey(s.ns, s.name)].Errors, func(f Finding) bool {
				return f.Code == incluster.CodeHostnameNotDeclared && f.Path == hostPath(i)
			})
			if got != want {
				bad = append(bad, fmt.Sprintf("audit: %s/%s %s LS314 %v, the model wants %v", s.ns, s.name, hostPath(i), got, want))
			}
		}
	}
	return bad
}

// modelRoute is a stored HTTPRoute: its manifest, the step of its last
// stored write, and the records of its claims by routeClaimKey, kept
// while the claim is the route's (pruned when it stops being: a claim
// that comes back through a ListenerSet's write, not the route's, has
// none).
type modelRoute struct {
	ns, name  string
	r         RouteManifest
	lastWrite int
	claims    map[string]*modelClaim
}

func routeClaimKey(gk, h string) string { return gk + " " + h }

// routeClaims are the claims a route of ns with manifest r makes in the
// model's state: the Gateway key of its set's parent (a route has one
// parentRef, to a set of its Namespace) and the indices of the hostnames
// it claims there, through a listener without a hostname (every one) or
// a wildcard (those it covers, not itself: that one is the set's);
// judged whether the set's Gateway is not another implementation's.
func (m *Model) routeClaims(ns string, r RouteManifest) (gk string, hosts []int, judged bool) {
	s := m.sets[setKey(ns, r.Set)]
	if s == nil {
		return "", nil, false
	}
	gk, hosts = routeClaimsThrough(s, r)
	return gk, hosts, m.class(s.parent) != SeqOtherClass
}

// routeClaimsThrough are the claims of a route with manifest r through
// set s (its parent key, the indices of the hostnames it claims there).
func routeClaimsThrough(s *modelSet, r RouteManifest) (gk string, hosts []int) {
	for _, l := range s.listeners {
		if r.Section != "" && l.Name != r.Section {
			continue
		}
		for j, h := range r.Hostnames {
			w := l.Hostname
			if w == "" || strings.HasPrefix(w, "*.") && w != h && strings.HasSuffix(h, w[1:]) {
				if !slices.Contains(hosts, j) {
					hosts = append(hosts, j)
				}
			}
		}
	}
	slices.Sort(hosts)
	return s.parent, hosts
}

// routeHolders are the stored routes of other owners than ns whose
// claims on key overlap h.
func (m *Model) routeHolders(key, ns, h string) []*modelRoute {
	var out []*modelRoute
	for _, rt := range m.routes {
		if rt.ns == ns {
			continue
		}
		gk, hosts, judged := m.routeClaims(rt.ns, rt.r)
		if gk != key || !judged {
			continue
		}
		if slices.ContainsFunc(hosts, func(j int) bool { return seqOverlap(rt.r.Hostnames[j], h) }) {
			out = append(out, rt)
		}
	}
	return out
}

// routeHeld tells whether the stored route old held hostname h on key,
// as the rules ratchet: it names h, its set's parent is key, and it was
// last written after key's Gateway was created.
func (m *Model) routeHeld(old *modelRoute, key, h string) bool {
	if old == nil || !slices.Contains(old.r.Hostnames, h) {
		return false
	}
	s := m.sets[setKey(old.ns, old.r.Set)]
	return s != nil && s.parent == key && old.lastWrite >= m.created(key)
}

// routeExpect is what an HTTPRoute write must get: per hostname index it
// claims, LS319 from its Namespace's declaration (a held one ratcheted),
// and, for a new claim, LS320 exactly when another owner's set or route
// holds an overlapping name on the Gateway.
func (m *Model) routeExpect(step Step) Expectation {
	x := Expectation{Route: true, notDeclared: map[int]bool{}, ratchetedUndeclared: map[int]bool{}, newClaims: map[int]bool{}, routeHeld: map[int]bool{}}
	old := m.routes[setKey(step.Namespace, step.Name)]
	gk, hosts, judged := m.routeClaims(step.Namespace, step.Route)
	x.Judged = judged
	x.Why = "route"
	if old == nil {
		x.Why += ": a create"
	}
	x.routeGateway = gk
	if !judged {
		return x
	}
	d := m.decl[step.Namespace]
	for _, j := range hosts {
		h := step.Route.Hostnames[j]
		held := m.routeHeld(old, gk, h)
		x.routeHeld[j] = held
		if d != "" && !seqCovers(d, h) {
			if held {
				x.ratchetedUndeclared[j] = true
			} else {
				x.notDeclared[j] = true
			}
		}
		if !held {
			x.newClaims[j] = len(m.holders(gk, step.Namespace, "", h))+len(m.routeHolders(gk, step.Namespace, h)) > 0
		}
	}
	return x
}

func routeHostPath(j int) string {
	return field.NewPath("spec", "hostnames").Index(j).String()
}

// The route codes (validation/internal/routes' LS319 and LS320).
const (
	seqRouteNotDeclared = "LS319"
	seqRouteClaimed     = "LS320"
)

func (m *Model) checkRouteVerdict(x Expectation, out Outcome) []string {
	var bad []string
	v := out.Verdict
	found := func(list []Finding, code string, j int) bool {
		return slices.ContainsFunc(list, func(f Finding) bool { return string(f.Code) == code && f.Path == routeHostPath(j) })
	}
	for _, e := range v.Errors {
		if string(e.Code) != seqRouteNotDeclared && !(string(e.Code) == seqRouteClaimed && m.Mode == incluster.ClaimDeny) {
			bad = append(bad, fmt.Sprintf("route: an error the sequences do not provoke: %s %s: %s", e.Code, e.Path, e.Message))
		}
	}
	if !x.Judged {
		if len(v.Errors) > 0 {
			bad = append(bad, fmt.Sprintf("route: no claim judged, yet refused: %v", v.Errors))
		}
		return bad
	}
	for j := range out.Step.Route.Hostnames {
		if got := found(v.Errors, seqRouteNotDeclared, j); got != x.notDeclared[j] {
			bad = append(bad, fmt.Sprintf("route %s (on %s): LS319 error %v, the model wants %v", routeHostPath(j), x.routeGateway, got, x.notDeclared[j]))
		}
		if x.ratchetedUndeclared[j] && !found(v.Warnings, seqRouteNotDeclared, j) {
			bad = append(bad, fmt.Sprintf("route %s (on %s): no ratcheted LS319 warning for a held hostname outside the declaration", routeHostPath(j), x.routeGateway))
		}
		want, isNew := x.newClaims[j]
		if !isNew {
			continue
		}
		got, other := found(v.Warnings, seqRouteClaimed, j), found(v.Errors, seqRouteClaimed, j)
		if m.Mode == incluster.ClaimDeny {
			got, other = other, got
		}
		if got != want || other {
			bad = append(bad, fmt.Sprintf("route %s (on %s, a new claim, %s): LS320 %v, the model wants %v", routeHostPath(j), x.routeGateway, m.Mode, got, want))
		}
	}
	return bad
}

// recordRoute adds an admitted route write to the history: each claim
// held keeps its record (none: not judged as new), each new one starts
// now, judged as new (warned whether LS320 warned it) when the Gateway
// is not another implementation's.
func (m *Model) recordRoute(x Expectation, out Outcome) {
	st := out.Step
	key := setKey(st.Namespace, st.Name)
	old := m.routes[key]
	rt := &modelRoute{ns: st.Namespace, name: st.Name, r: st.Route, lastWrite: m.step, claims: map[string]*modelClaim{}}
	if out.NoOp {
		rt.lastWrite = old.lastWrite
	}
	gk, hosts, judged := m.routeClaims(st.Namespace, st.Route)
	for _, j := range hosts {
		h := st.Route.Hostnames[j]
		ck := routeClaimKey(gk, h)
		c := &modelClaim{start: m.step, judgedNew: -1}
		switch {
		case out.NoOp || x.routeHeld[j]:
			if old != nil && old.claims[ck] != nil {
				prev := *old.claims[ck]
				c = &prev
			}
		case judged:
			c.judgedNew = m.step
			c.warned = slices.ContainsFunc(out.Verdict.Warnings, func(f Finding) bool {
				return string(f.Code) == seqRouteClaimed && f.Path == routeHostPath(j)
			})
		}
		rt.claims[ck] = c
	}
	m.routes[key] = rt
}

// checkGiven holds a set write's verdict to the claims it gives attached
// routes (x.given): LS319 and LS320 (an error under deny, else a warning)
// exactly where the model wants them, each naming the route and the
// hostname, and no such finding for a claim the write does not give.
func (m *Model) checkGiven(x Expectation, v Verdict) []string {
	var bad []string
	has := func(list []Finding, code string, g givenClaim) bool {
		p := givenPrefix(g.ns, g.route, g.hostname)
		return slices.ContainsFunc(list, func(f Finding) bool { return string(f.Code) == code && strings.HasPrefix(f.Message, p) })
	}
	claimedIn, otherIn := v.Warnings, v.Errors
	if m.Mode == incluster.ClaimDeny {
		claimedIn, otherIn = v.Errors, v.Warnings
	}
	for _, g := range x.given {
		if got := has(v.Errors, seqRouteNotDeclared, g); got != g.notDeclared {
			bad = append(bad, fmt.Sprintf("given to HTTPRoute %s/%s: %s: LS319 error %v, the model wants %v", g.ns, g.route, g.hostname, got, g.notDeclared))
		}
		want := g.held && m.Mode != incluster.ClaimOff
		if got := has(claimedIn, seqRouteClaimed, g); got != want || has(otherIn, seqRouteClaimed, g) {
			bad = append(bad, fmt.Sprintf("given to HTTPRoute %s/%s: %s (%s): LS320 %v, the model wants %v", g.ns, g.route, g.hostname, m.Mode, got, want))
		}
	}
	givenBy := func(f Finding) bool {
		for _, g := range x.given {
			if strings.HasPrefix(f.Message, givenPrefix(g.ns, g.route, g.hostname)) {
				return true
			}
		}
		return false
	}
	for _, f := range append(slices.Clone(v.Errors), v.Warnings...) {
		if (string(f.Code) == seqRouteNotDeclared || string(f.Code) == seqRouteClaimed) && !givenBy(f) {
			bad = append(bad, fmt.Sprintf("a route claim the write does not give: %s %s: %s", f.Code, f.Path, f.Message))
		}
	}
	return bad
}

// pruneRouteClaims drops the records of claims routes no longer make and
// starts one for each claim a route makes without its own write: its set
// written under it (created, moved, a listener without a hostname or a
// wildcard added), judged as new by that write (x.given; warned whether
// it said LS320), or, on another implementation's Gateway, never.
func (m *Model) pruneRouteClaims(x Expectation, out Outcome) {
	for _, rt := range m.routes {
		gk, hosts, _ := m.routeClaims(rt.ns, rt.r)
		current := map[string]bool{}
		for _, j := range hosts {
			h := rt.r.Hostnames[j]
			ck := routeClaimKey(gk, h)
			current[ck] = true
			if rt.claims[ck] != nil {
				continue
			}
			c := &modelClaim{start: m.step, judgedNew: -1}
			// x.given is only a judged set write's; a claim can only
			// appear where that write was stored
			if g, ok := x.given[givenKey(rt.ns, rt.name, h)]; ok {
				c.judgedNew = m.step
				c.warned = slices.ContainsFunc(out.Verdict.Warnings, func(f Finding) bool {
					return string(f.Code) == seqRouteClaimed && strings.HasPrefix(f.Message, givenPrefix(g.ns, g.route, g.hostname))
				})
				m.Stats["route claim that came with a set's write, judged"]++
			} else {
				m.Stats["route claim that came with a set's write, not judged"]++
			}
			rt.claims[ck] = c
		}
		for ck := range rt.claims {
			if !current[ck] {
				delete(rt.claims, ck)
			}
		}
	}
}

// ownedClaim is a claim of an owner on a Gateway key, a set's or a
// route's, for invariant (1) with routes.
type ownedClaim struct {
	ns, who, gk, h string
	route          bool
	c              *modelClaim
}

// RouteInvariants holds the stored HTTPRoutes to the history (as many
// as the model's) and the first claim with routes. On an Airlock Gateway, no
// owner's route claim holds a name another owner's set or route claimed
// there first, and no set's claim a name another owner's route claimed
// there first, unless the newcomer's claim was warned when last judged as
// new (warn) or never judged as new (made on another implementation's
// Gateway: Stats count them).
func (m *Model) RouteInvariants(stored []*gwv1.HTTPRoute) []string {
	var bad []string
	if len(stored) != len(m.routes) {
		bad = append(bad, fmt.Sprintf("the model has %d routes, the cluster %d", len(m.routes), len(stored)))
	}
	var all []ownedClaim
	for _, s := range m.sets {
		for h, c := range s.claims {
			all = append(all, ownedClaim{s.ns, "ListenerSet " + s.name, s.parent, h, false, c})
		}
	}
	for _, rt := range m.routes {
		gk, hosts, _ := m.routeClaims(rt.ns, rt.r)
		for _, j := range hosts {
			h := rt.r.Hostnames[j]
			c := rt.claims[routeClaimKey(gk, h)]
			all = append(all, ownedClaim{rt.ns, "HTTPRoute " + rt.name, gk, h, true, c})
		}
	}
	for _, a := range all {
		if m.class(a.gk) != SeqAirlockClass {
			continue
		}
		for _, b := range all {
			if b.gk != a.gk || b.ns == a.ns || !(a.route || b.route) || !seqOverlap(a.h, b.h) {
				continue
			}
			if m.effective(a.gk, a.c.start) >= m.effective(b.gk, b.c.start) {
				continue
			}
			c := b.c
			switch {
			case c.judgedNew < 0:
				m.Stats["invariant: a name held over the first claim with routes, never judged"]++
				if b.route {
					m.Stats["invariant: a route's name held over the first claim, never judged"]++
				}
				continue
			case m.Mode == incluster.ClaimWarn && c.warned:
				m.Stats["invariant: a name held over the first claim with routes, warned"]++
				continue
			}
			bad = append(bad, fmt.Sprintf("%s/%s holds %s on %s (claimed at step %d, judged as new at step %d, warned %v) over %s/%s's %s, claimed first (step %d)",
				b.ns, b.who, b.h, b.gk, c.start, c.judgedNew, c.warned, a.ns, a.who, a.h, a.c.start))
		}
	}
	return bad
}
