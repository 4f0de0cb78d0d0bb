package validationtest

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Sequences of requests (issue 49, "a test of sequences, not requests"):
// three tenants, team-a, team-b and team-c, write ListenerSets on four
// Gateway keys through random sequences of the requests a tenant and a
// platform team send; kube-apiserver's metadata is simulated (seqsim.go) and
// each step is held to a model computed from the history (seqmodel.go). The
// generator knows nothing of verdicts: a step is the same request whatever
// the webhook said to the steps before it, so a seed is one sequence in every
// first-claim mode and through every engine.

// The Gateway keys of the sequences.
const (
	// SeqShared and SeqSecond are Airlock's Gateways at the start.
	SeqShared = "infra/shared"
	SeqSecond = "infra/second"
	// SeqDecoy is another implementation's Gateway at the start, in a
	// tenant's namespace (the decoy of issue 49).
	SeqDecoy = "team-c/decoy"
	// SeqMissing does not exist at the start.
	SeqMissing = "infra/missing"
)

// The GatewayClasses of the sequences: Airlock's, and another
// implementation's (SeqOtherController).
const (
	SeqAirlockClass    = "airlock"
	SeqOtherClass      = "other"
	SeqOtherController = "example.com/gateway-controller"
)

// SeqTenants are the namespaces whose ListenerSets the sequences write, each
// its own owner.
var SeqTenants = []string{"team-a", "team-b", "team-c"}

// SeqGatewayKeys are the Gateway keys, SeqInitialClasses their classes at
// the start ("": missing).
var (
	SeqGatewayKeys    = []string{SeqShared, SeqSecond, SeqDecoy, SeqMissing}
	SeqInitialClasses = map[string]string{SeqShared: SeqAirlockClass, SeqSecond: SeqAirlockClass, SeqDecoy: SeqOtherClass}
)

// SeqInitialDeclarations are the tenants' declarations at the start: one
// declares none, the others their domains ("": none).
var SeqInitialDeclarations = map[string]string{"team-a": "", "team-b": "*.b.example.com,b.example.com", "team-c": "*.c.example.com"}

// seqHostnames are the hostnames listeners take, "" for none: names and
// wildcards of each tenant's domain, one of nobody's, and the wide wildcards
// a squatter parks (*.com).
var seqHostnames = []string{"*.a.example.com", "login.a.example.com", "*.b.example.com", "shop.b.example.com",
	"*.c.example.com", "login.z2.example.com", "*.example.com", "*.com", ""}

// seqDeclarations are the declarations a Namespace changes to ("": none).
var seqDeclarations = []string{"", "*.a.example.com", "*.b.example.com,b.example.com", "*.c.example.com",
	"*.example.com", "*", "login.a.example.com,*.c.example.com", "*.com"}

// seqSetNames are each tenant's ListenerSets.
var seqSetNames = []string{"s1", "s2"}

// seqListenerNames are the listeners a set may have, each on its own port
// (seqPort), so that a set is never in conflict with itself.
var seqListenerNames = []string{"l1", "l2", "l3"}

func seqPort(listener string) int32 { return 8080 + int32(slices.Index(seqListenerNames, listener)) }

// Op is what a step does.
type Op string

const (
	// OpApply: `kubectl apply --server-side --force-conflicts` of the
	// set's manifest (field manager "kubectl"): a create, or an update of
	// whatever the manifest changes (its labels, listeners, parentRef).
	OpApply Op = "apply"
	// OpLabel: `kubectl label --overwrite` of SeqTagLabel (field manager
	// "kubectl-label").
	OpLabel Op = "label"
	// OpPatchParent: `kubectl patch --type=merge` of spec.parentRef alone
	// (field manager "kubectl-patch").
	OpPatchParent Op = "patch-parent"
	// OpDelete deletes the set.
	OpDelete Op = "delete"
	// OpDeleteGateway and OpCreateGateway delete and (re-)create a
	// Gateway, of Class.
	OpDeleteGateway Op = "delete-gateway"
	OpCreateGateway Op = "create-gateway"
	// OpDeclare sets a Namespace's declaration to Value ("" removes it).
	OpDeclare Op = "declare"
	// OpApplyRoute applies Route as the HTTPRoute Namespace/Name (server-
	// side, field manager "kubectl"); OpDeleteRoute deletes it. Only
	// GenerateSequenceWithRoutes makes them.
	OpApplyRoute  Op = "apply-route"
	OpDeleteRoute Op = "delete-route"
)

// RouteManifest is a tenant's manifest of an HTTPRoute: one parentRef, to
// the ListenerSet Set of its own Namespace (Section "": no sectionName),
// and its hostnames.
type RouteManifest struct {
	Set, Section string
	Hostnames    []string
}

// The labels the steps write: the manifests' revision, and kubectl label's.
const (
	SeqRevLabel = "rev"
	SeqTagLabel = "tag"
)

// SeqListener is a listener of a manifest: HTTP, on its name's port,
// Hostname "" for none.
type SeqListener struct {
	Name     string
	Hostname string
}

// Manifest is a tenant's manifest of a ListenerSet.
type Manifest struct {
	// Parent is the Gateway key of spec.parentRef.
	Parent string
	// Rev is the value of SeqRevLabel: a labels-only change bumps it.
	Rev       int
	Listeners []SeqListener
}

func (m Manifest) clone() Manifest {
	m.Listeners = slices.Clone(m.Listeners)
	return m
}

// Step is one request of a sequence.
type Step struct {
	Op              Op
	Namespace, Name string
	// Manifest is what OpApply applies.
	Manifest Manifest
	// Route is what OpApplyRoute applies.
	Route RouteManifest
	// Value is OpLabel's label value and OpDeclare's declaration.
	Value string
	// Gateway is OpPatchParent's new parent, and the Gateway of the
	// Gateway steps; Class the class OpCreateGateway gives it.
	Gateway, Class string
	// Advance is how many seconds the clock moves before the step (at
	// least 1: kube-apiserver's times are seconds, and the sequences do
	// not make two writes of one second).
	Advance int
	// Pattern names the hostile pattern the step belongs to, if any.
	Pattern string
}

func (s Step) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "+%ds %s", s.Advance, s.Op)
	switch s.Op {
	case OpApply:
		var ls []string
		for _, l := range s.Manifest.Listeners {
			h := l.Hostname
			if h == "" {
				h = "<none>"
			}
			ls = append(ls, l.Name+"="+h)
		}
		fmt.Fprintf(&b, " %s/%s parent=%s rev=%d [%s]", s.Namespace, s.Name, s.Manifest.Parent, s.Manifest.Rev, strings.Join(ls, " "))
	case OpLabel:
		fmt.Fprintf(&b, " %s/%s %s=%s", s.Namespace, s.Name, SeqTagLabel, s.Value)
	case OpPatchParent:
		fmt.Fprintf(&b, " %s/%s parent=%s", s.Namespace, s.Name, s.Gateway)
	case OpDelete:
		fmt.Fprintf(&b, " %s/%s", s.Namespace, s.Name)
	case OpDeleteGateway:
		fmt.Fprintf(&b, " %s", s.Gateway)
	case OpCreateGateway:
		fmt.Fprintf(&b, " %s class=%s", s.Gateway, s.Class)
	case OpDeclare:
		fmt.Fprintf(&b, " %s %q", s.Namespace, s.Value)
	case OpApplyRoute:
		sec := s.Route.Section
		if sec == "" {
			sec = "<all>"
		}
		fmt.Fprintf(&b, " %s/%s set=%s section=%s %v", s.Namespace, s.Name, s.Route.Set, sec, s.Route.Hostnames)
	case OpDeleteRoute:
		fmt.Fprintf(&b, " %s/%s", s.Namespace, s.Name)
	}
	if s.Pattern != "" {
		fmt.Fprintf(&b, " (%s)", s.Pattern)
	}
	return b.String()
}

// SeqLength is how many steps GenerateSequence makes of a seed.
const SeqLength = 24

// GenerateSequence is the sequence of seed: SeqLength steps (a hostile
// pattern started near the end runs to its end), random requests of the
// three tenants and the platform, with the hostile patterns of issue 49 put
// in often (parked then moved, *.com parked, the decoy of another
// implementation deleted then moved, a set parked where a Gateway is then
// created).
func GenerateSequence(seed uint64) []Step { return generate(seed, false) }

// GenerateSequenceWithRoutes is GenerateSequence's sequence of seed with
// HTTPRoute steps among the random ones (a fifth of them): each tenant's
// routes r1 and r2 applied to one of its sets (a listener, or all),
// their hostnames from seqRouteHostnames, or deleted; and the listeners a
// route claims through (without a hostname) made more often. Another
// sequence than GenerateSequence's of the same seed.
func GenerateSequenceWithRoutes(seed uint64) []Step { return generate(seed, true) }

func generate(seed uint64, routes bool) []Step {
	g := &seqGen{rng: rand.New(rand.NewPCG(seed, 49)), manifests: map[string]*Manifest{}, gateways: map[string]string{}, routes: routes}
	for k, c := range SeqInitialClasses {
		g.gateways[k] = c
	}
	for len(g.steps) < SeqLength {
		if g.rng.IntN(8) == 0 {
			g.pattern()
			continue
		}
		g.random()
	}
	return g.steps
}

type seqGen struct {
	rng         *rand.Rand
	manifests   map[string]*Manifest // the tenants' manifests, by namespace/name
	gateways    map[string]string    // what the platform believes: key → class, absent when missing
	steps       []Step
	patternName string
	routes      bool // GenerateSequenceWithRoutes
}

func (g *seqGen) add(s Step) {
	s.Advance = 1 + g.rng.IntN(3)
	s.Pattern = g.patternName
	g.steps = append(g.steps, s)
}

func (g *seqGen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// parent is a Gateway key for a set, the shared Gateway most often.
func (g *seqGen) parent() string {
	switch r := g.rng.IntN(10); {
	case r < 4:
		return SeqShared
	case r < 6:
		return SeqSecond
	case r < 8:
		return SeqMissing
	}
	return SeqDecoy
}

// hostname is a listener's hostname for a set of ns: half the time one of
// its own domain (the initial declarations cover them), else any.
func (g *seqGen) hostname(ns string) string {
	if own := seqOwnHostnames[ns]; g.rng.IntN(2) == 0 {
		return g.pick(own)
	}
	return g.pick(seqHostnames)
}

var seqOwnHostnames = map[string][]string{"team-a": {"*.a.example.com", "login.a.example.com"},
	"team-b": {"*.b.example.com", "shop.b.example.com"}, "team-c": {"*.c.example.com", "login.c.example.com"}}

// apply applies m as ns/name's manifest.
func (g *seqGen) apply(ns, name string, m Manifest) {
	g.manifests[ns+"/"+name] = &m
	g.add(Step{Op: OpApply, Namespace: ns, Name: name, Manifest: m.clone()})
}

func (g *seqGen) newManifest(ns, parent string) Manifest {
	m := Manifest{Parent: parent, Rev: 1}
	for _, l := range seqListenerNames[:1+g.rng.IntN(2)] {
		m.Listeners = append(m.Listeners, SeqListener{Name: l, Hostname: g.hostname(ns)})
	}
	if g.routes && g.rng.IntN(3) == 0 {
		// a listener routes claim through: admitted where the
		// declaration is none or "*" (team-a's at the start)
		m.Listeners[0].Hostname = ""
	}
	return m
}

// move moves ns/name to parent, by patch or by apply.
func (g *seqGen) move(ns, name, parent string) {
	m := g.manifests[ns+"/"+name]
	if m == nil || g.rng.IntN(2) == 0 {
		g.add(Step{Op: OpPatchParent, Namespace: ns, Name: name, Gateway: parent})
		if m != nil {
			m.Parent = parent // the tenant's manifest follows
		}
		return
	}
	n := m.clone()
	n.Parent = parent
	g.apply(ns, name, n)
}

// seqRouteHostnames are the hostnames routes take: names of each
// tenant's domain (under its wildcard listeners), of nobody's, and a
// wildcard.
var seqRouteHostnames = []string{"login.a.example.com", "x.a.example.com", "shop.b.example.com", "login.c.example.com",
	"login.z2.example.com", "*.c.example.com"}

// route applies or deletes one of a tenant's routes.
func (g *seqGen) route() {
	ns, name := g.pick(SeqTenants), g.pick([]string{"r1", "r2"})
	if g.rng.IntN(5) == 0 {
		g.add(Step{Op: OpDeleteRoute, Namespace: ns, Name: name})
		return
	}
	r := RouteManifest{Set: g.pick(seqSetNames)}
	// most often through a listener of the tenant's manifests that lets
	// a route claim (none, or a wildcard)
	var through []SeqListener
	for _, name := range seqSetNames {
		if m := g.manifests[ns+"/"+name]; m != nil {
			for _, l := range m.Listeners {
				if l.Hostname == "" || strings.HasPrefix(l.Hostname, "*.") {
					through = append(through, l)
					if g.rng.IntN(len(through)) == 0 {
						r.Set = name
					}
				}
			}
		}
	}
	if len(through) > 0 && g.rng.IntN(3) != 0 {
		for _, l := range g.manifests[ns+"/"+r.Set].Listeners {
			if (l.Hostname == "" || strings.HasPrefix(l.Hostname, "*.")) && g.rng.IntN(2) == 0 {
				r.Section = l.Name
			}
		}
	} else if g.rng.IntN(3) == 0 {
		r.Section = g.pick(seqListenerNames)
	}
	for range 1 + g.rng.IntN(2) {
		if h := g.pick(seqRouteHostnames); !slices.Contains(r.Hostnames, h) {
			r.Hostnames = append(r.Hostnames, h)
		}
	}
	g.add(Step{Op: OpApplyRoute, Namespace: ns, Name: name, Route: r})
}

func (g *seqGen) random() {
	if g.routes && g.rng.IntN(5) == 0 {
		g.route()
		return
	}
	ns, name := g.pick(SeqTenants), g.pick(seqSetNames)
	key := ns + "/" + name
	m := g.manifests[key]
	switch r := g.rng.IntN(100); {
	case r < 34:
		if m == nil {
			g.apply(ns, name, g.newManifest(ns, g.parent()))
			return
		}
		n := m.clone()
		switch g.rng.IntN(5) {
		case 0:
			n.Rev++
		case 1:
			n.Listeners[g.rng.IntN(len(n.Listeners))].Hostname = g.hostname(ns)
		case 2:
			if len(n.Listeners) < len(seqListenerNames) {
				for _, l := range seqListenerNames {
					if !slices.ContainsFunc(n.Listeners, func(e SeqListener) bool { return e.Name == l }) {
						n.Listeners = append(n.Listeners, SeqListener{Name: l, Hostname: g.hostname(ns)})
						break
					}
				}
			}
		case 3:
			if len(n.Listeners) > 1 {
				i := g.rng.IntN(len(n.Listeners))
				n.Listeners = slices.Delete(n.Listeners, i, i+1)
			}
		case 4:
			n.Parent = g.parent()
		}
		g.apply(ns, name, n)
	case r < 44:
		g.add(Step{Op: OpLabel, Namespace: ns, Name: name, Value: fmt.Sprint(g.rng.IntN(3))})
	case r < 58:
		g.move(ns, name, g.parent())
	case r < 66:
		delete(g.manifests, key)
		g.add(Step{Op: OpDelete, Namespace: ns, Name: name})
	case r < 74:
		gw := g.pick(SeqGatewayKeys)
		delete(g.gateways, gw)
		g.add(Step{Op: OpDeleteGateway, Gateway: gw})
	case r < 86:
		gw, class := g.pick(SeqGatewayKeys), SeqAirlockClass
		if g.rng.IntN(3) == 0 {
			class = SeqOtherClass
		}
		if _, exists := g.gateways[gw]; !exists {
			g.gateways[gw] = class
		}
		g.add(Step{Op: OpCreateGateway, Gateway: gw, Class: class})
	default:
		g.add(Step{Op: OpDeclare, Namespace: ns, Value: g.pick(seqDeclarations)})
	}
}

// pattern puts in one of issue 49's hostile patterns, its tenants and
// names random; random steps may follow between its steps.
func (g *seqGen) pattern() {
	squatter := g.pick(SeqTenants)
	victim := g.pick(slices.DeleteFunc(slices.Clone(SeqTenants), func(t string) bool { return t == squatter }))
	domain := map[string]string{"team-a": "a", "team-b": "b", "team-c": "c"}[victim]
	name := g.pick(seqSetNames)
	victimName := g.pick(seqSetNames)
	between := func() {
		for range g.rng.IntN(3) {
			g.random()
		}
	}
	switch g.rng.IntN(4) {
	case 0, 1: // parked, then moved: by age it would win the name
		g.patternName = "parked then moved"
		h := "login." + domain + ".example.com"
		if g.rng.IntN(2) == 0 {
			g.patternName, h = "*.com parked then moved", "*.com"
		}
		g.apply(squatter, name, Manifest{Parent: SeqMissing, Rev: 1, Listeners: []SeqListener{{Name: "l1", Hostname: h}}})
		between()
		g.apply(victim, victimName, Manifest{Parent: SeqShared, Rev: 1, Listeners: []SeqListener{{Name: "l1", Hostname: "*." + domain + ".example.com"}}})
		between()
		g.move(squatter, name, SeqShared)
	case 2: // the decoy of another implementation, deleted, then moved
		g.patternName = "decoy deleted then moved"
		if g.gateways[SeqDecoy] != SeqOtherClass {
			g.add(Step{Op: OpDeleteGateway, Gateway: SeqDecoy})
			g.add(Step{Op: OpCreateGateway, Gateway: SeqDecoy, Class: SeqOtherClass})
			g.gateways[SeqDecoy] = SeqOtherClass
		}
		h := g.pick([]string{"login.z2.example.com", "login." + domain + ".example.com", "*.com"})
		g.apply(squatter, name, Manifest{Parent: SeqDecoy, Rev: 1, Listeners: []SeqListener{{Name: "l1", Hostname: h}}})
		between()
		g.add(Step{Op: OpDeleteGateway, Gateway: SeqDecoy})
		delete(g.gateways, SeqDecoy)
		g.move(squatter, name, SeqShared)
	default: // parked where a Gateway is then created, Airlock's
		g.patternName = "parked, then the Gateway created"
		gw := g.pick([]string{SeqMissing, SeqDecoy})
		g.apply(squatter, name, Manifest{Parent: gw, Rev: 1, Listeners: []SeqListener{{Name: "l1", Hostname: g.hostname(victim)}}})
		between()
		g.add(Step{Op: OpDeleteGateway, Gateway: gw})
		g.add(Step{Op: OpCreateGateway, Gateway: gw, Class: SeqAirlockClass})
		g.gateways[gw] = SeqAirlockClass
		g.add(Step{Op: OpLabel, Namespace: squatter, Name: name, Value: "after"})
	}
	g.patternName = ""
}

// SeedsFile is where the seeds that once failed are kept, from the
// repository's root: every run of the sequences replays them first.
const SeedsFile = "validation/testdata/sequence-seeds"

// RegressionSeeds reads a seeds file: one seed a line, "#" starts a
// comment.
func RegressionSeeds(path string) ([]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var seeds []uint64
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		s, err := strconv.ParseUint(line, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		seeds = append(seeds, s)
	}
	return seeds, sc.Err()
}
