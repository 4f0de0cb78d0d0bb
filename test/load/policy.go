package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// The states of the API server figure with the ValidatingAdmissionPolicy,
// and the server they need: ours as the chart's admission.mode both runs it.
const (
	statePolicyOnly       = "policy only"
	statePolicyAndWebhook = "policy + webhook (Ignore, cluster checks on)"
	oursClusterChecks     = "ours-cluster-checks"
	loadPolicyName        = "listenerset-load"
)

// apiPolicy is the generated policies and bindings; the policies are
// created once, the bindings come and go with the states.
type apiPolicy struct {
	policy.Policies
	bound bool
}

func (c *apiCluster) createPolicy(ctx context.Context) error {
	p, err := policy.Generate(policy.Options{PolicyName: loadPolicyName, BindingName: loadPolicyName})
	if err != nil {
		return err
	}
	c.policy = &apiPolicy{Policies: p}
	for _, pair := range p.Pairs() {
		if err := c.client.Create(ctx, pair.Policy.DeepCopy()); err != nil {
			return err
		}
	}
	return nil
}

// bindPolicy creates or deletes the bindings.
func (c *apiCluster) bindPolicy(ctx context.Context, on bool) error {
	p := c.policy
	for _, pair := range p.Pairs() {
		switch {
		case on && !p.bound:
			if err := c.client.Create(ctx, pair.Binding.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		case !on && p.bound:
			if err := c.client.Delete(ctx, pair.Binding.DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	p.bound = on
	return nil
}

// policyMatches says whether kube-apiserver enforces the policy exactly when
// s binds it: a dry-run create of an invalid ListenerSet is denied by the
// policy, or not (then ours may deny it, or nobody).
func (c *apiCluster) policyMatches(ctx context.Context, s apiState) (bool, error) {
	c.probeSequence++
	probe := fixtures.BadCipher()
	probe.Namespace, probe.Name = c.namespace, fmt.Sprintf("probe-%d", c.probeSequence)
	err := c.client.Create(ctx, probe, client.DryRunAll)
	if err != nil && !apierrors.IsInvalid(err) && !strings.Contains(err.Error(), "denied") {
		return false, fmt.Errorf("dry-run policy probe: %w", err)
	}
	return localcluster.PolicyDenied(err, loadPolicyName) == s.policy, nil
}

// registerIgnore points both webhook configurations at server with
// failurePolicy Ignore and the mutating webhook's matchConditions, as the
// chart registers them in admission.mode both.
func (c *apiCluster) registerIgnore(ctx context.Context, server string) error {
	m, v := localcluster.WebhookConfigurations(c.endpoint(server))
	m.Webhooks[0].FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
	v.Webhooks[0].FailurePolicy = ptr.To(admissionregistrationv1.Ignore)
	return c.put(ctx, m, v)
}

// policyCost is what the policy costs inside kube-apiserver, per object:
// the ValidatingAdmissionPolicy admission plugin's time per request
// (apiserver_admission_controller_admission_duration_seconds, name
// ValidatingAdmissionPolicy, type validate: sum over count of N dry-run
// creates) with the policy bound and, for reference, unbound (the plugin
// with nothing to evaluate). Denied requests also record the policy's own
// apiserver_validating_admission_policy_check_duration_seconds (kube-apiserver
// observes it only for denials and evaluation errors).
type policyCost struct {
	Requests int              `json:"requestsPerObject"`
	Objects  []policyCostCase `json:"objects"`
}

type policyCostCase struct {
	Object      string  `json:"object"`
	Bytes       int     `json:"jsonBytes"`
	Denied      bool    `json:"denied"`
	PluginMs    float64 `json:"pluginMeanMsBound"`
	UnboundMs   float64 `json:"pluginMeanMsUnbound"`
	CheckMs     float64 `json:"checkMeanMs,omitempty"`
	CheckUnder1 float64 `json:"checkShareUnder1ms,omitempty"`
	ClientP50Ms float64 `json:"clientP50MsBound"`
	// ClientUnboundP50Ms is the same dry-run create without the policy:
	// what kube-apiserver (the CRD's schema and rules) costs anyway.
	ClientUnboundP50Ms float64 `json:"clientP50MsUnbound"`
}

// policyCostRequests per object and binding: the 64-listener object costs
// the policy hundreds of milliseconds (docs/performance.md).
const policyCostRequests = 30

// policyCostFigure measures policyCost, with no webhook registered, for the
// two-listener object of the timed creates, the 64-listener object of the
// load mix (fixtures.SixtyFour, valid), the largest valid object within the
// CRD's limits (validationtest.LargestValid: 64 listeners, 16 options
// of 4096 bytes, every list full; 2.8 MB of JSON) and an invalid one with
// every list at its maximum (fixtures.Largest, option values cut to fit the
// request limit), which the policy denies.
func policyCostFigure(ctx context.Context, c *apiCluster) (*policyCost, error) {
	say("API server figure: the policy's cost inside kube-apiserver (%d dry-run creates per object, bound and unbound)", policyCostRequests)
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	if err := c.unregister(ctx); err != nil {
		return nil, err
	}
	res := &policyCost{Requests: policyCostRequests}
	for _, o := range []struct {
		name string
		mk   func() *gwv1.ListenerSet
	}{
		{"2 listeners (valid; the creates above)", fixtures.TwoListeners},
		{"64 listeners, every TLS option (valid; the load mix's)", fixtures.SixtyFour},
		{"largest valid within the CRD's limits (validationtest)", func() *gwv1.ListenerSet { return validationtest.LargestValid(validation.MaxListeners) }},
		{"every list at the CRD's maximum (invalid)", fixtures.Largest},
	} {
		pc := policyCostCase{Object: o.name}
		for _, bound := range []bool{true, false} {
			if err := c.bindPolicy(ctx, bound); err != nil {
				return nil, err
			}
			if err := c.waitFor(ctx, apiState{Name: "policy cost", policy: bound}); err != nil {
				return nil, err
			}
			var samples []time.Duration
			var before, after *dto.MetricFamily
			var checkBefore, checkAfter *dto.MetricFamily
			for i := -5; i < policyCostRequests; i++ { // 5 unmeasured
				if i == 0 {
					if before, checkBefore, err = admissionMetrics(ctx, cs); err != nil {
						return nil, err
					}
				}
				ls := o.mk()
				ls.Namespace, ls.Name = c.namespace, fmt.Sprintf("cost-%d", i+10)
				if pc.Bytes == 0 {
					b, _ := jsonSize(ls)
					pc.Bytes = b
				}
				t := time.Now()
				err := c.client.Create(ctx, ls, client.DryRunAll)
				d := time.Since(t)
				denied := localcluster.PolicyDenied(err, loadPolicyName)
				if err != nil && !denied {
					return nil, fmt.Errorf("%s: %w", o.name, err)
				}
				if bound {
					pc.Denied = denied
				}
				if i >= 0 {
					samples = append(samples, d)
				}
			}
			if after, checkAfter, err = admissionMetrics(ctx, cs); err != nil {
				return nil, err
			}
			mean, n := histogramDelta(before, after, map[string]string{"name": "ValidatingAdmissionPolicy", "type": "validate", "operation": "CREATE"})
			if n != policyCostRequests {
				return nil, fmt.Errorf("%s: the plugin metric counted %d requests, want %d", o.name, n, policyCostRequests)
			}
			slices.Sort(samples)
			if bound {
				pc.PluginMs = mean * 1000
				pc.ClientP50Ms = ms(percentile(samples, 50))
				cm, cn := histogramDelta(checkBefore, checkAfter, map[string]string{"policy": loadPolicyName})
				if cn > 0 {
					pc.CheckMs = cm * 1000
					pc.CheckUnder1 = bucketShareDelta(checkBefore, checkAfter, map[string]string{"policy": loadPolicyName}, 0.001)
				}
			} else {
				pc.UnboundMs = mean * 1000
				pc.ClientUnboundP50Ms = ms(percentile(samples, 50))
			}
		}
		say("API server figure: %s: the policy plugin %.3f ms per request bound, %.3f unbound", o.name, pc.PluginMs, pc.UnboundMs)
		res.Objects = append(res.Objects, pc)
	}
	return res, c.bindPolicy(ctx, false)
}

const (
	pluginMetric = "apiserver_admission_controller_admission_duration_seconds"
	checkMetric  = "apiserver_validating_admission_policy_check_duration_seconds"
)

// admissionMetrics scrapes kube-apiserver's /metrics for the admission
// plugin and policy check histograms (a missing family is an empty one).
func admissionMetrics(ctx context.Context, cs kubernetes.Interface) (plugin, check *dto.MetricFamily, err error) {
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(raw)))
	if err != nil {
		return nil, nil, fmt.Errorf("parsing kube-apiserver /metrics: %w", err)
	}
	plugin, check = fams[pluginMetric], fams[checkMetric]
	if plugin == nil {
		return nil, nil, fmt.Errorf("kube-apiserver /metrics has no %s", pluginMetric)
	}
	if check == nil {
		check = &dto.MetricFamily{}
	}
	return plugin, check, nil
}

// histogramDelta sums the histograms of fam whose labels include match, and
// returns the mean of the observations made between before and after, and
// their number.
func histogramDelta(before, after *dto.MetricFamily, match map[string]string) (mean float64, n int) {
	sum := func(f *dto.MetricFamily) (s float64, c uint64) {
		for _, m := range f.GetMetric() {
			if labelsMatch(m, match) {
				s += m.GetHistogram().GetSampleSum()
				c += m.GetHistogram().GetSampleCount()
			}
		}
		return s, c
	}
	s0, c0 := sum(before)
	s1, c1 := sum(after)
	if c1 == c0 {
		return 0, 0
	}
	return (s1 - s0) / float64(c1-c0), int(c1 - c0)
}

// bucketShareDelta is the share of the observations between before and
// after that fell into the bucket with upper bound le.
func bucketShareDelta(before, after *dto.MetricFamily, match map[string]string, le float64) float64 {
	count := func(f *dto.MetricFamily) (under, all uint64) {
		for _, m := range f.GetMetric() {
			if !labelsMatch(m, match) {
				continue
			}
			all += m.GetHistogram().GetSampleCount()
			for _, b := range m.GetHistogram().GetBucket() {
				if b.GetUpperBound() == le {
					under += b.GetCumulativeCount()
				}
			}
		}
		return under, all
	}
	u0, a0 := count(before)
	u1, a1 := count(after)
	if a1 == a0 {
		return 0
	}
	return float64(u1-u0) / float64(a1-a0)
}

func labelsMatch(m *dto.Metric, match map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := match[l.GetName()]; ok {
			if v != l.GetValue() {
				return false
			}
			found++
		}
	}
	return found == len(match)
}

func (p *policyCost) ratios() []ratio {
	if p == nil {
		return nil
	}
	var out []ratio
	for _, o := range p.Objects {
		out = append(out, ratio{fmt.Sprintf("policy's time in kube-apiserver, ms: %s", o.Object), o.PluginMs, "< 1.00", o.PluginMs < 1})
	}
	return out
}

func (p *policyCost) print() {
	if p == nil {
		return
	}
	fmt.Printf("\nThe policy inside kube-apiserver (%d dry-run creates per object; the ValidatingAdmissionPolicy plugin's mean time per request):\n", p.Requests)
	fmt.Printf("%-56s %8s %6s %9s %10s %9s %17s\n", "object", "JSON KiB", "denied", "bound ms", "unbound ms", "check ms", "client p50 ms b/u")
	for _, o := range p.Objects {
		check := "-"
		if o.CheckMs > 0 {
			check = fmt.Sprintf("%.3f", o.CheckMs)
		}
		fmt.Printf("%-56s %8.0f %6v %9.3f %10.3f %9s %8.2f/%-8.2f\n", o.Object, float64(o.Bytes)/1024, o.Denied, o.PluginMs, o.UnboundMs, check, o.ClientP50Ms, o.ClientUnboundP50Ms)
	}
}

func jsonSize(obj any) (int, error) {
	b, err := json.Marshal(obj)
	return len(b), err
}
