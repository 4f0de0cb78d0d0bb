package main

import (
	"math"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func family(t *testing.T, text, name string) *dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return fams[name]
}

// kube-apiserver's admission plugin histogram as /metrics shows it, before
// and after 3 requests to the policy plugin (2 admitted, 1 rejected) and
// one to another plugin.
const (
	pluginBefore = `# TYPE apiserver_admission_controller_admission_duration_seconds histogram
apiserver_admission_controller_admission_duration_seconds_bucket{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate",le="0.005"} 10
apiserver_admission_controller_admission_duration_seconds_bucket{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate",le="+Inf"} 10
apiserver_admission_controller_admission_duration_seconds_sum{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate"} 0.01
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate"} 10
apiserver_admission_controller_admission_duration_seconds_bucket{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate",le="0.005"} 5
apiserver_admission_controller_admission_duration_seconds_bucket{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate",le="+Inf"} 5
apiserver_admission_controller_admission_duration_seconds_sum{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate"} 0.5
apiserver_admission_controller_admission_duration_seconds_count{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate"} 5
`
	pluginAfter = `# TYPE apiserver_admission_controller_admission_duration_seconds histogram
apiserver_admission_controller_admission_duration_seconds_bucket{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate",le="0.005"} 12
apiserver_admission_controller_admission_duration_seconds_bucket{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate",le="+Inf"} 12
apiserver_admission_controller_admission_duration_seconds_sum{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate"} 0.014
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="false",type="validate"} 12
apiserver_admission_controller_admission_duration_seconds_bucket{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="true",type="validate",le="0.005"} 0
apiserver_admission_controller_admission_duration_seconds_bucket{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="true",type="validate",le="+Inf"} 1
apiserver_admission_controller_admission_duration_seconds_sum{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="true",type="validate"} 0.008
apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionPolicy",operation="CREATE",rejected="true",type="validate"} 1
apiserver_admission_controller_admission_duration_seconds_bucket{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate",le="0.005"} 6
apiserver_admission_controller_admission_duration_seconds_bucket{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate",le="+Inf"} 6
apiserver_admission_controller_admission_duration_seconds_sum{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate"} 0.6
apiserver_admission_controller_admission_duration_seconds_count{name="NamespaceLifecycle",operation="CREATE",rejected="false",type="validate"} 6
`
)

// TestHistogramDelta: the mean and count of the observations between two
// scrapes, over the series whose labels match, rejected or not; the share
// in a bucket.
func TestHistogramDelta(t *testing.T) {
	before, after := family(t, pluginBefore, pluginMetric), family(t, pluginAfter, pluginMetric)
	match := map[string]string{"name": "ValidatingAdmissionPolicy", "type": "validate", "operation": "CREATE"}
	mean, n := histogramDelta(before, after, match)
	if n != 3 || math.Abs(mean-0.004) > 1e-9 {
		t.Errorf("histogramDelta = %v over %d, want 0.004 over 3 ((0.004 + 0.008) / 3)", mean, n)
	}
	if share := bucketShareDelta(before, after, match, 0.005); math.Abs(share-2.0/3) > 1e-9 {
		t.Errorf("bucketShareDelta = %v, want 2/3", share)
	}
	if _, n := histogramDelta(before, before, match); n != 0 {
		t.Errorf("no observations between equal scrapes, got %d", n)
	}
	if _, n := histogramDelta(before, after, map[string]string{"name": "Other"}); n != 0 {
		t.Errorf("a label value nobody has: %d observations", n)
	}
}

// TestPolicyTargets: policy only ≤ 1.10 × no webhooks, and under 1 ms of
// the policy's time in kube-apiserver per object, reported met or missed.
func TestPolicyTargets(t *testing.T) {
	a := &apiResult{States: []apiStateResult{
		{Name: "no webhooks", P50Ms: 2}, {Name: "floor", P50Ms: 3}, {Name: "ours", P50Ms: 3},
		{Name: "ours+matchConditions", P50Ms: 2.6}, {Name: "floor, validating only", P50Ms: 2.6},
		{Name: statePolicyOnly, P50Ms: 2.3}, {Name: statePolicyAndWebhook, P50Ms: 3},
	}, PolicyCost: &policyCost{Objects: []policyCostCase{{Object: "small", PluginMs: 0.2}, {Object: "big", PluginMs: 2.5}}}}
	got := map[string]ratio{}
	for _, r := range apiRatios(a) {
		got[r.What] = r
	}
	if r := got["API server creates p50 policy only/no webhooks"]; r.Met || math.Abs(r.Value-1.15) > 1e-9 {
		t.Errorf("policy only 2.3 vs 2: %+v, want 1.15, missed", r)
	}
	if r := got["policy's time in kube-apiserver, ms: small"]; !r.Met {
		t.Errorf("0.2 ms: %+v, want met", r)
	}
	if r := got["policy's time in kube-apiserver, ms: big"]; r.Met {
		t.Errorf("2.5 ms: %+v, want missed", r)
	}
	a.States[5].P50Ms = 2.1
	for _, r := range apiRatios(a) {
		if r.What == "API server creates p50 policy only/no webhooks" && !r.Met {
			t.Errorf("policy only 2.1 vs 2: %+v, want met", r)
		}
	}
}
