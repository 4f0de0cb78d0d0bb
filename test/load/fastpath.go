package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/test/localcluster"
)

var (
	fastPathMode    = flag.Bool("fast-path", false, "run the fast-path figure only: what the policy's fast path (policy/fast.go) saves a create through kube-apiserver; -creates (2-listener creates per state and round) and -api-rounds set its size")
	fastPathSixFour = flag.Int("fast-path-64", 20, "fast-path figure: creates of the 64-listener set per state and round")
)

// The states of the fast-path figure: no admission at all, the generated
// policies (the rules and the declarations), and the rules' policy without
// its fast path (its match condition), so that every request is judged by
// the rules in full.
var fastPathStates = []string{"no admission", "policy", "policy without fast path"}

// runFastPath times real sequential creates of the 2-listener set of the API
// server figure (fixtures.TwoListeners: in a Namespace without a hostname
// declaration, and in one whose declaration covers its hostname, where the
// declarations' policy judges it) and the 64-listener set of the load mix
// (fixtures.SixtyFour, each deleted again) through kube-apiserver in the
// three fastPathStates, rotating their order over rounds (round 0 warms up
// and is not counted); the policies are created once, the states bind
// theirs or none. It prints each state's p50 over all rounds and, per
// round, each policy state's p50 over no admission's of the same round:
// min, median and max.
func runFastPath(ctx context.Context, perRound, sixtyFour, rounds int) error {
	root, _, err := repoPaths()
	if err != nil {
		return err
	}
	load0 := loadAvg()
	lc, err := localcluster.Start(ctx, localcluster.Options{Root: root, Progress: os.Stderr})
	if err != nil {
		return err
	}
	defer lc.Stop()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := gwv1.Install(scheme); err != nil {
		return err
	}
	cfg := rest.CopyConfig(lc.Config)
	cfg.QPS = -1
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	const ns, declaredNS = "load", "load-declared"
	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	declared := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: declaredNS, Annotations: map[string]string{
		validation.DefaultAllowedHostnamesAnnotation: "*.example.com"}}}
	if err := cl.Create(ctx, declared); err != nil {
		return err
	}
	// each state's bindings; the first one's policy is what the probe
	// (WaitForPolicy) meets
	bindings := map[string][]*admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	for i, s := range fastPathStates[1:] {
		name := fmt.Sprintf("listenerset-fast-path-%d", i)
		p, err := policy.Generate(policy.Options{PolicyName: name, BindingName: name})
		if err != nil {
			return err
		}
		pairs := p.Pairs()
		if s == fastPathStates[2] {
			rules := p.Rules
			if n := len(rules.Policy.Spec.MatchConditions); n != 1 || rules.Policy.Spec.MatchConditions[0].Name != policy.FastPathCondition {
				return fmt.Errorf("the rules' policy has %d match conditions, want %s alone", n, policy.FastPathCondition)
			}
			rules.Policy.Spec.MatchConditions = nil
			pairs = []policy.Pair{rules}
		}
		for _, pair := range pairs {
			if err := cl.Create(ctx, pair.Policy); err != nil {
				return err
			}
			bindings[s] = append(bindings[s], pair.Binding)
		}
	}
	bind := func(state string) error {
		for s, bs := range bindings {
			for _, b := range bs {
				if s == state {
					if err := cl.Create(ctx, b.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
						return err
					}
				} else if err := cl.Delete(ctx, b.DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
		}
		for s, bs := range bindings {
			if err := lc.WaitForPolicy(ctx, ns, bs[0].Spec.PolicyName, s == state, time.Minute); err != nil {
				return err
			}
		}
		return nil
	}
	objects := []struct {
		name      string
		mk        func() *gwv1.ListenerSet
		namespace string
		n         int
		delete    bool // keeps the store small
	}{
		{"2 listeners", fixtures.TwoListeners, ns, perRound, false},
		{"2, declared", fixtures.TwoListeners, declaredNS, perRound, false},
		{"64 listeners", fixtures.SixtyFour, ns, sixtyFour, true},
	}
	all := map[string][]time.Duration{}
	ratios := map[string][]float64{}
	seq := 0
	for round := 0; round <= rounds; round++ {
		p50 := map[string]float64{}
		for k := range fastPathStates {
			s := fastPathStates[(k+round)%len(fastPathStates)]
			if err := bind(s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
			for _, o := range objects {
				n := o.n
				if round == 0 {
					n = 3
				}
				var got []time.Duration
				for range n {
					seq++
					ls := o.mk()
					ls.Namespace, ls.Name = o.namespace, fmt.Sprintf("fast-path-%d", seq)
					t := time.Now()
					if err := cl.Create(ctx, ls); err != nil {
						return fmt.Errorf("%s: create %s: %w", s, ls.Name, err)
					}
					got = append(got, time.Since(t))
					if o.delete {
						if err := cl.Delete(ctx, ls); err != nil {
							return err
						}
					}
				}
				slices.Sort(got)
				p50[s+"/"+o.name] = ms(percentile(got, 50))
				if round > 0 {
					all[s+"/"+o.name] = append(all[s+"/"+o.name], got...)
				}
			}
		}
		if round == 0 {
			continue
		}
		var line []string
		for _, o := range objects {
			for _, s := range fastPathStates[1:] {
				r := p50[s+"/"+o.name] / p50[fastPathStates[0]+"/"+o.name]
				ratios[s+"/"+o.name] = append(ratios[s+"/"+o.name], r)
				line = append(line, fmt.Sprintf("%s %s %.3f", o.name, s, r))
			}
		}
		say("fast-path figure: round %d of %d: %s", round, rounds, strings.Join(line, ", "))
	}
	fmt.Printf("\nFast path: real creates through kube-apiserver, %d rounds (load average %s before, %s after)\n", rounds, load0, loadAvg())
	fmt.Printf("%-14s %-26s %7s %8s %8s   %s\n", "object", "state", "creates", "p50 ms", "mean ms", "p50 / no admission's, per round: min median max")
	for _, o := range objects {
		for _, s := range fastPathStates {
			d := all[s+"/"+o.name]
			slices.Sort(d)
			var sum time.Duration
			for _, x := range d {
				sum += x
			}
			r := ""
			if rs := ratios[s+"/"+o.name]; len(rs) > 0 {
				slices.Sort(rs)
				r = fmt.Sprintf("%.3f %.3f %.3f", rs[0], rs[len(rs)/2], rs[len(rs)-1])
			}
			fmt.Printf("%-14s %-26s %7d %8.2f %8.2f   %s\n", o.name, s, len(d), ms(percentile(d, 50)), ms(sum/time.Duration(max(len(d), 1))), r)
		}
	}
	return nil
}
