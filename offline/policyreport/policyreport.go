package policyreport

import (
	"encoding/json"
	"fmt"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/report"
)

// The report's API: the PolicyReport of the Kubernetes policy working
// group, the one Kyverno writes by default (doc.go).
const (
	Group    = "wgpolicyk8s.io"
	Version  = "v1alpha2"
	Kind     = "PolicyReport"
	Resource = "policyreports"
)

// GVR is the reports' resource.
var GVR = schema.GroupVersionResource{Group: Group, Version: Version, Resource: Resource}

// The reports' identity: one per namespace, named ReportName; ManagedBy is
// its app.kubernetes.io/managed-by label (what Write lists and deletes by),
// its field manager and every result's source.
const (
	ReportName     = "listenerset-audit"
	ManagedBy      = "kubectl-listenerset"
	ManagedByLabel = "app.kubernetes.io/managed-by"
)

// Policy is every result's policy: the webhook's rules.
const Policy = "listenerset-webhook"

// passRule is the rule of a set's pass result: all of the rules, which a
// set without findings passes.
const passRule = "all"

// MaxBytes bounds the encoded results of one report; with the rest of the
// object it stays far under etcd's 1.5 MiB request limit.
const MaxBytes = 512 << 10

// Result values of the CRD's enum.
const (
	ResultPass = "pass"
	ResultFail = "fail"
	ResultWarn = "warn"
)

// RBACRules are all Write needs, on the report kind only: patch for
// server-side apply, and create as well, which kube-apiserver asks for when
// an apply creates the report (k8s.io/apiserver's patch handler, its
// createAuthorizerAttributes); list and delete for the stale reports.
// Write never gets or updates one (TestAuditWritesReports runs with these
// alone).
func RBACRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{{APIGroups: []string{Group}, Resources: []string{Resource},
		Verbs: []string{"list", "create", "patch", "delete"}}}
}

// Report is the part of a PolicyReport this package writes.
type Report struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Summary    Summary  `json:"summary"`
	Results    []Result `json:"results"`
}

// Metadata is the report's object metadata.
type Metadata struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Labels    map[string]string `json:"labels"`
}

// Summary counts results by outcome; Fail and Warn count every finding,
// also those past the cap.
type Summary struct {
	Pass  int `json:"pass"`
	Fail  int `json:"fail"`
	Warn  int `json:"warn"`
	Error int `json:"error"`
	Skip  int `json:"skip"`
}

// Result is one policy result.
type Result struct {
	Source string `json:"source"`
	Policy string `json:"policy"`
	// Rule is the finding's diagnostic code.
	Rule       string            `json:"rule"`
	Category   string            `json:"category,omitempty"`
	Result     string            `json:"result"`
	Scored     bool              `json:"scored"`
	Message    string            `json:"message"`
	Timestamp  Timestamp         `json:"timestamp"`
	Resources  []ObjectReference `json:"resources,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
}

// Timestamp is the CRD's protobuf-style time.
type Timestamp struct {
	Seconds int64 `json:"seconds"`
	Nanos   int32 `json:"nanos"`
}

// ObjectReference names the ListenerSet a result is about.
type ObjectReference struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Namespace  string    `json:"namespace"`
	Name       string    `json:"name"`
	UID        types.UID `json:"uid,omitempty"`
}

// Build makes one report per namespace of results, in the order the
// namespaces first appear (the audit's is namespace/name), each result
// stamped now; uids give each ListenerSet's uid where known.
func Build(results []judge.Result, uids map[types.NamespacedName]types.UID, now time.Time) []*Report {
	var order []*builder
	byNamespace := map[string]*builder{}
	stamp := Timestamp{Seconds: now.Unix(), Nanos: int32(now.Nanosecond())}
	for i := range results {
		res := &results[i]
		b := byNamespace[res.Namespace]
		if b == nil {
			b = &builder{r: &Report{APIVersion: Group + "/" + Version, Kind: Kind,
				Metadata: Metadata{Name: ReportName, Namespace: res.Namespace, Labels: map[string]string{ManagedByLabel: ManagedBy}},
				Results:  []Result{}}, stamp: stamp}
			byNamespace[res.Namespace] = b
			order = append(order, b)
		}
		ref := ObjectReference{APIVersion: gwv1.GroupVersion.String(), Kind: res.KindName(), Namespace: res.Namespace, Name: res.Name}
		if res.Kind == "" { // uids are the ListenerSets'
			ref.UID = uids[types.NamespacedName{Namespace: res.Namespace, Name: res.Name}]
		}
		for _, e := range res.Errors {
			b.add(ResultFail, e.Code, e.Field, e.Message, ref)
		}
		for _, w := range res.Warnings {
			b.add(ResultWarn, w.Code, w.Field, w.Message, ref)
		}
		if len(res.Errors)+len(res.Warnings) == 0 {
			b.add(ResultPass, passRule, "", "no finding: valid, without warnings", ref)
		}
	}
	out := make([]*Report, len(order))
	for i, b := range order {
		out[i] = b.finish()
	}
	return out
}

// builder adds results to one report up to MaxBytes, and counts the rest.
type builder struct {
	r     *Report
	stamp Timestamp
	size  int
	// left out past the cap, by outcome
	leftFail, leftWarn, leftPass int
}

func (b *builder) add(outcome, code, field, message string, ref ObjectReference) {
	switch outcome {
	case ResultFail:
		b.r.Summary.Fail++
	case ResultWarn:
		b.r.Summary.Warn++
	default:
		b.r.Summary.Pass++
	}
	if b.size >= MaxBytes {
		b.leftOut(outcome)
		return
	}
	res := Result{Source: ManagedBy, Policy: Policy, Rule: code, Result: outcome, Scored: true, Message: message,
		Timestamp: b.stamp, Resources: []ObjectReference{ref}}
	if outcome != ResultPass {
		res.Category = report.CodeTitle(code)
		res.Properties = map[string]string{"help": findings.Code(code).HelpURI()}
		if field != "" {
			res.Properties["field"] = field
		}
	}
	enc, err := json.Marshal(res)
	if err != nil || b.size+len(enc) > MaxBytes {
		b.size = MaxBytes
		b.leftOut(outcome)
		return
	}
	b.size += len(enc)
	b.r.Results = append(b.r.Results, res)
}

func (b *builder) leftOut(outcome string) {
	switch outcome {
	case ResultFail:
		b.leftFail++
	case ResultWarn:
		b.leftWarn++
	default:
		b.leftPass++
	}
}

// finish adds the result that says what the cap left out, if anything: the
// more serious code's (LS001 when errors were left out, else LS002).
func (b *builder) finish() *Report {
	left := b.leftFail + b.leftWarn + b.leftPass
	if left == 0 {
		return b.r
	}
	code, outcome := findings.CodeMoreWarnings, ResultWarn
	if b.leftFail > 0 {
		code, outcome = findings.CodeMoreErrors, ResultFail
	}
	b.r.Results = append(b.r.Results, Result{Source: ManagedBy, Policy: Policy, Rule: string(code), Category: report.CodeTitle(string(code)),
		Result: outcome, Scored: false, Timestamp: b.stamp,
		Message: fmt.Sprintf("%d more results (%d fail, %d warn, %d pass) than a report holds: kubectl listenerset audit -n %s lists them all",
			left, b.leftFail, b.leftWarn, b.leftPass, b.r.Metadata.Namespace),
		Properties: map[string]string{"help": code.HelpURI()}})
	return b.r
}
