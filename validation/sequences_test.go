package validation_test

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// seedsFile holds the seeds that once failed TestSequences, replayed first
// (validationtest.SeedsFile, from this package).
const seedsFile = "testdata/sequence-seeds"

// TestSequences: issue 49's test of sequences, not requests. Random
// sequences of requests of three tenants and a platform team
// (validationtest.GenerateSequence: creates, updates, hostname changes,
// parentRef moves between Airlock's Gateways, another implementation's and
// a missing one, deletions, Gateways deleted and re-created, of either
// class, declarations changed, the hostile patterns of the issue, and
// HTTPRoutes applied and deleted, judged by JudgeRoute) run
// against validationtest.Sim, kube-apiserver's storage and metadata, each
// write judged by Judge as the webhook judges it (the stored object on
// update, the stored cluster, Airlock's scope), in both first-claim modes
// that judge (warn and deny); validationtest.Model holds every verdict and,
// after every step, the stored state to what the history says, and, after
// each sequence, the audit (Judge with AsStored). Model's comment says what
// it promises and what it cannot.
//
// The seeds of seedsFile first, then 1 to 3000 (-short: 300); SEQUENCE_SEED
// runs one seed and prints its steps. A failing seed is printed: add it to
// seedsFile.
func TestSequences(t *testing.T) {
	seeds, err := validationtest.RegressionSeeds(seedsFile)
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(3000)
	if testing.Short() {
		n = 300
	}
	for s := range n {
		if !slices.Contains(seeds, s+1) {
			seeds = append(seeds, s+1)
		}
	}
	if one := os.Getenv("SEQUENCE_SEED"); one != "" {
		s, err := strconv.ParseUint(one, 10, 64)
		if err != nil {
			t.Fatalf("SEQUENCE_SEED: %v", err)
		}
		seeds = []uint64{s}
	}
	failed := 0
	stats := map[string]int{}
	for _, seed := range seeds {
		for _, mode := range []incluster.ClaimMode{incluster.ClaimWarn, incluster.ClaimDeny} {
			trace, bad := runSequence(seed, mode, stats)
			if len(bad) == 0 && os.Getenv("SEQUENCE_SEED") == "" {
				continue
			}
			if len(bad) > 0 {
				failed++
			}
			switch {
			case failed > 30:
			case failed > 3:
				t.Errorf("seed %d, first claim %s: %s", seed, mode, bad[0])
			default:
				t.Errorf("seed %d, first claim %s (SEQUENCE_SEED=%d go test -run TestSequences ./validation; add it to %s):\n%s\n%s",
					seed, mode, seed, seedsFile, strings.Join(trace, "\n"), strings.Join(bad, "\n"))
			}
		}
	}
	if failed > 30 {
		t.Errorf("%d more failing sequences", failed-30)
	}
	t.Logf("%d sequences of %d steps, each in two modes; the writes:", len(seeds), validationtest.SeqLength)
	for _, k := range slices.Sorted(maps.Keys(stats)) {
		t.Logf("%6d %s", stats[k], k)
	}
	// the space the generator must reach: every way of arriving, and the
	// hostile patterns caught when they arrive
	for _, k := range []string{"arriving: a create, LS316", "arriving: moved from infra/missing, LS316", "arriving: moved from team-c/decoy, LS314",
		"arriving: the Gateway created, LS316", "arriving: the Gateway created, LS314", "staying, LS314", "staying, LS316",
		"pattern parked then moved, arriving, LS316", "pattern *.com parked then moved, arriving, LS316",
		"pattern decoy deleted then moved, arriving, LS314", "pattern parked, then the Gateway created, arriving, LS316",
		"route: a create, LS319", "route: a create, LS320", "route, LS319", "route, LS320"} {
		if stats[k] == 0 && os.Getenv("SEQUENCE_SEED") == "" {
			t.Errorf("no write reached %q", k)
		}
	}
}

// runSequence runs seed's sequence with first claim mode; trace is its
// steps with their verdicts, bad what the model finds wrong.
func runSequence(seed uint64, mode incluster.ClaimMode, stats map[string]int) (trace, bad []string) {
	opts := func(c *incluster.Objects) validation.Options {
		return validation.Options{Cluster: c, Classes: c, Routes: c, Tenancy: incluster.Tenancy{FirstClaim: mode},
			Scope: incluster.Scope{ControllerNames: []gwv1.GatewayController{incluster.AirlockControllerName}}}
	}
	judge := func(newLS, oldLS *gwv1.ListenerSet, c *incluster.Objects) validationtest.Verdict {
		r := validation.Judge(newLS, oldLS, opts(c))
		return validationtest.VerdictOf(r.Errors.List(), r.Warnings.List())
	}
	audit := func(ls *gwv1.ListenerSet, c *incluster.Objects) validationtest.Verdict {
		o := opts(c)
		o.AsStored = true
		r := validation.Judge(ls, nil, o)
		return validationtest.VerdictOf(r.Errors.List(), r.Warnings.List())
	}
	sim, model := validationtest.NewSim(), validationtest.NewModel(mode)
	sim.RouteJudge = func(route, old *gwv1.HTTPRoute, c *incluster.Objects) validationtest.Verdict {
		r := validation.JudgeRoute(route, old, opts(c))
		return validationtest.VerdictOf(r.Errors.List(), r.Warnings.List())
	}
	for i, step := range validationtest.GenerateSequenceWithRoutes(seed) {
		x := model.Expect(step)
		out := sim.Do(step, judge)
		trace = append(trace, fmt.Sprintf("%2d %s%s", i+1, step, validationtest.Describe(out)))
		for _, b := range slices.Concat(model.Check(x, out), model.Invariants(sim.Sets()), model.RouteInvariants(sim.Routes())) {
			bad = append(bad, fmt.Sprintf("step %d: %s", i+1, b))
		}
		if len(bad) > 0 {
			return trace, bad
		}
	}
	for k, n := range model.Stats {
		stats[k] += n
	}
	return trace, model.Audit(sim.Cluster(), audit)
}
