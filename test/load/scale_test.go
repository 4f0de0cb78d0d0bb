package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("10000, 0,1000")
	if err != nil || len(got) != 3 || got[0] != 0 || got[1] != 1000 || got[2] != 10000 {
		t.Errorf("parseSizes = %v, %v; want [0 1000 10000] (ascending)", got, err)
	}
	for _, bad := range []string{"", "1,-1", "a", "5,5", "1,,2"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q): no error", bad)
		}
	}
}

func TestSizeLabel(t *testing.T) {
	for n, want := range map[int]string{0: "0", 200: "200", 999: "999", 1000: "1k", 2500: "2.5k", 10000: "10k", 100000: "100k"} {
		if got := sizeLabel(n); got != want {
			t.Errorf("sizeLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

func defaultSizes() []scaleSizeResult {
	return []scaleSizeResult{
		{ListenerSets: 0, P50Ms: 3.104, RSSMiB: 40.04, ReadySeconds: 0.51, NoWebhookP50Ms: 2.5, CPUPerRequestUs: 300},
		{ListenerSets: 1000, P50Ms: 3.2, RSSMiB: 48.25, ReadySeconds: 1.04, NoWebhookP50Ms: 2.6, CPUPerRequestUs: 310},
		{ListenerSets: 10000, P50Ms: 3.41, RSSMiB: 137.66, ReadySeconds: 4.26, NoWebhookP50Ms: 2.7, CPUPerRequestUs: 320},
	}
}

// TestScaleLastLine: the last line as the scale figure's readers expect it, word for word, with two
// decimals for ms and one for MiB and s.
func TestScaleLastLine(t *testing.T) {
	want := "scale: p50 0/1k/10k = 3.10/3.20/3.41 ms; rss 0/1k/10k = 40.0/48.2/137.7 MiB; ready 10k = 4.3 s"
	if got := scaleLastLine(defaultSizes()); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	quick := []scaleSizeResult{{ListenerSets: 0, P50Ms: 2}, {ListenerSets: 200, P50Ms: 2.5, RSSMiB: 1, ReadySeconds: 0.25}}
	if got, want := scaleLastLine(quick), "scale: p50 0/200 = 2.00/2.50 ms; rss 0/200 = 0.0/1.0 MiB; ready 200 = 0.2 s"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestScaleTargets(t *testing.T) {
	find := func(rs []ratio, prefix string) ratio {
		t.Helper()
		for _, r := range rs {
			if strings.HasPrefix(r.What, prefix) {
				return r
			}
		}
		t.Fatalf("no target %q in %v", prefix, rs)
		return ratio{}
	}
	rs := scaleTargets(defaultSizes(), shapeGateways)
	p50, rss, ready := find(rs, "p50 at 10k / p50 at 0"), find(rs, "RSS growth 0 to 10k"), find(rs, "start to ready")
	if !p50.Met || p50.Value < 1.098 || p50.Value > 1.099 {
		t.Errorf("p50 ratio %v: want 3.41/3.104 = 1.0986, met", p50)
	}
	if !rss.Met || rss.Value < 9.99 || rss.Value > 9.997 { // (137.66-40.04) MiB / 10000 = 9.996 KiB
		t.Errorf("RSS growth %v: want 9.996 KiB, met", rss)
	}
	if !ready.Met || ready.Value != 4.26 {
		t.Errorf("ready %v: want 4.26 s, met", ready)
	}
	for _, r := range rs {
		if r.Target == "-" != strings.HasSuffix(r.What, "(for reference)") {
			t.Errorf("%q: target %q", r.What, r.Target)
		}
	}

	missed := defaultSizes()
	missed[2].P50Ms, missed[2].RSSMiB, missed[2].ReadySeconds = 3.42, 137.7, 10.01
	rs = scaleTargets(missed, shapeGateways)
	for _, prefix := range []string{"p50 at 10k", "RSS growth", "start to ready"} {
		if r := find(rs, prefix); r.Met {
			t.Errorf("%v: want missed", r)
		}
	}
	if rs := scaleTargets(missed[:1], shapeGateways); len(rs) != 1 || !strings.HasPrefix(rs[0].What, "start to ready") {
		t.Errorf("one size: %v, want only the time to ready", rs)
	}
}

func TestParseMetrics(t *testing.T) {
	text := `# HELP listenerset_webhook_cluster_view_synced 1 when ...
# TYPE listenerset_webhook_cluster_view_synced gauge
listenerset_webhook_cluster_view_synced{kind="Gateway"} 1
listenerset_webhook_cluster_view_synced{kind="GatewayClass"} 1
listenerset_webhook_cluster_view_synced{kind="ListenerSet"} 0
listenerset_webhook_cluster_view_synced{kind="Namespace"} 1
listenerset_webhook_cluster_view_synced{kind="ReferenceGrant"} 1
listenerset_webhook_cluster_view_synced{kind="Secret"} 1
listenerset_webhook_cluster_view_synced{kind="HTTPRoute"} 1
go_memstats_heap_inuse_bytes 1.2582912e+07
controller_runtime_webhook_requests_total{code="200",webhook="/validate"} 12
`
	synced, heap := parseMetrics(text)
	if len(synced) != 7 || synced["Gateway"] != 1 || synced["ListenerSet"] != 0 {
		t.Errorf("synced = %v", synced)
	}
	if heap != 12<<20 {
		t.Errorf("heap = %v, want %v", heap, 12<<20)
	}
	if allSynced(synced, scaleKinds) {
		t.Error("allSynced with ListenerSet at 0")
	}
	synced["ListenerSet"] = 1
	if !allSynced(synced, scaleKinds) {
		t.Error("not allSynced with every kind at 1")
	}
	delete(synced, "Secret")
	if allSynced(synced, scaleKinds) {
		t.Error("allSynced without a Secret gauge")
	}
	if _, heap := parseMetrics("up 1\n"); heap != -1 {
		t.Errorf("no heap gauge: %v, want -1", heap)
	}
}

func TestProbeOK(t *testing.T) {
	w := []string{`spec.listeners[0].hostname: same port, protocol and hostname as scale-00/shared listener http; this listener would be Conflicted (HostnameConflict)`}
	for _, c := range []struct {
		got, want []string
		ok        bool
	}{
		{nil, nil, true},
		{w, nil, false},
		{nil, []string{"HostnameConflict"}, false},
		{w, []string{"HostnameConflict", "scale-00/shared"}, true},
		{w, []string{"HostnameConflict", "scale-00/ls-00000"}, false},
	} {
		if got := probeOK(c.got, c.want); got != c.ok {
			t.Errorf("probeOK(%q, %q) = %v, want %v", c.got, c.want, got, c.ok)
		}
	}
}

// TestClaimPattern: the owners probe's patterns, made from merged's two
// wordings of the first-claim warning, match each wording written for the
// probe's hostname (the very hostname's "is held by" included), and not a
// warning about another hostname.
func TestClaimPattern(t *testing.T) {
	const h, holder, by = "ls-00000.o0000.example.com", `namespace "ls-00000"`, "ListenerSet/ls-00000/ls-00000 listener http"
	held := fmt.Sprintf("spec.listeners[0].hostname: "+validation.DetailHostnameHeld, h, holder, by, 80)
	claimed := fmt.Sprintf("spec.listeners[0].hostname: "+validation.DetailHostnameClaimed, h, "*.o0000.example.com", holder, by, 80)
	other := fmt.Sprintf("spec.listeners[0].hostname: "+validation.DetailHostnameHeld, "x"+h, holder, by, 80)
	pats := []*regexp.Regexp{claimPattern(validation.DetailHostnameHeld, h), claimPattern(validation.DetailHostnameClaimed, h)}
	want := []string{`"ls-00000"`}
	for _, c := range []struct {
		got string
		ok  bool
	}{{held, true}, {claimed, true}, {other, false}} {
		if got := probeOK([]string{c.got}, want, pats...); got != c.ok {
			t.Errorf("probeOK(%q) = %v, want %v", c.got, got, c.ok)
		}
	}
}

// TestScaleLayout: at 10 000 every Gateway has 100 ListenerSets, one from
// every namespace; names and hostnames are unique; the measured creates'
// namespace may reference the first namespace's Secrets.
func TestScaleLayout(t *testing.T) {
	perGateway := map[string]map[string]bool{}
	hostnames := map[string]bool{}
	for i := range 10000 {
		ls, secret := scaleListenerSet(shapeGateways, i)
		gw := string(*ls.Spec.ParentRef.Namespace)
		if perGateway[gw] == nil {
			perGateway[gw] = map[string]bool{}
		}
		if perGateway[gw][ls.Namespace] {
			t.Fatalf("%s: a second ListenerSet from %s", gw, ls.Namespace)
		}
		perGateway[gw][ls.Namespace] = true
		h := string(*ls.Spec.Listeners[0].Hostname)
		if hostnames[h] {
			t.Fatalf("hostname %s twice", h)
		}
		hostnames[h] = true
		if secret.Namespace != ls.Namespace || string(ls.Spec.Listeners[1].TLS.CertificateRefs[0].Name) != secret.Name {
			t.Fatalf("ListenerSet %d: certificateRef %v, Secret %s/%s", i, ls.Spec.Listeners[1].TLS.CertificateRefs[0], secret.Namespace, secret.Name)
		}
		if ls.Annotations["kubectl.kubernetes.io/last-applied-configuration"] == "" {
			t.Fatal("no last-applied annotation")
		}
	}
	if len(perGateway) != scaleNamespaces {
		t.Errorf("%d Gateways with ListenerSets, want %d", len(perGateway), scaleNamespaces)
	}
	for gw, from := range perGateway {
		if len(from) != scaleNamespaces {
			t.Errorf("%s: ListenerSets from %d namespaces, want %d", gw, len(from), scaleNamespaces)
		}
	}
	m := measuredListenerSet("x")
	g := scaleGrant(0)
	if g.Namespace != string(*m.Spec.Listeners[1].TLS.CertificateRefs[0].Namespace) || string(g.Spec.From[0].Namespace) != m.Namespace {
		t.Errorf("the grant %s/%s does not permit the measured creates' reference from %s", g.Namespace, g.Name, m.Namespace)
	}
	if string(*m.Spec.ParentRef.Namespace) != scaleNS(0) {
		t.Errorf("measured parent %s, want the first Gateway", *m.Spec.ParentRef.Namespace)
	}
}

// TestScaleOneGatewayLayout: in the one-gateway shape every ListenerSet is
// on the first Gateway, the measured creates' parent, on 443 with a hostname
// of its own; the one-gateway targets are targets, not references.
func TestScaleOneGatewayLayout(t *testing.T) {
	hostnames := map[string]bool{}
	measured := measuredListenerSet("x").Spec.ParentRef
	for i := range 10000 {
		ls, secret := scaleListenerSet(shapeOneGateway, i)
		if *ls.Spec.ParentRef.Namespace != *measured.Namespace || ls.Spec.ParentRef.Name != measured.Name {
			t.Fatalf("ListenerSet %d: parent %s/%s, want the measured creates' %s/%s", i, *ls.Spec.ParentRef.Namespace, ls.Spec.ParentRef.Name, *measured.Namespace, measured.Name)
		}
		https := ls.Spec.Listeners[1]
		if https.Port != 443 || hostnames[string(*https.Hostname)] {
			t.Fatalf("ListenerSet %d: listener %s on %d, hostname %s (seen before: %v)", i, https.Name, https.Port, *https.Hostname, hostnames[string(*https.Hostname)])
		}
		hostnames[string(*https.Hostname)] = true
		if secret.Namespace != ls.Namespace {
			t.Fatalf("ListenerSet %d in %s, its Secret in %s", i, ls.Namespace, secret.Namespace)
		}
	}
	rs := defaultSizes()
	rs[0].AllocsPerRequest, rs[2].AllocsPerRequest = 1000, 1300
	var cpu, allocs *ratio
	targets := scaleTargets(rs, shapeOneGateway)
	for i := range targets {
		switch {
		case strings.HasPrefix(targets[i].What, "webhook CPU per request"):
			cpu = &targets[i]
		case strings.HasPrefix(targets[i].What, "webhook allocations per request"):
			allocs = &targets[i]
		}
	}
	if cpu == nil || allocs == nil {
		t.Fatalf("no CPU or allocations target in %v", targets)
	}
	if !cpu.Met || cpu.Target != "<= 1.20" || allocs.Met || allocs.Value != 1.3 {
		t.Errorf("CPU 320/300 µs and allocations 1300/1000 per request: got %+v, %+v; want the first met, the second missed", *cpu, *allocs)
	}
}

// TestScaleOwnersLayout: in the owners shape the 10 000 ListenerSets are on
// the first Gateway, spread over validationtest.Owners owner namespaces,
// one wildcard set per owner; judged as the webhook judges them (the
// tenancy rules on, the first claim a warning), none of them and none of
// the measured creates earns an error or a warning against the others,
// while a create on another owner's domain is denied.
func TestScaleOwnersLayout(t *testing.T) {
	const n = 10000
	cluster := &validation.Objects{Gateways: []*gwv1.Gateway{scaleGatewayObject(0, scaleGateway), scaleGatewayObject(0, scaleAloneGateway)}}
	owners, wildcards := map[string]bool{}, 0
	for o := range validationtest.Owners {
		ns := scaleOwnerNamespace(o)
		cluster.Namespaces = append(cluster.Namespaces, &metav1.PartialObjectMetadata{ObjectMeta: ns.ObjectMeta})
	}
	measured := measuredFor(shapeOwners)("x")
	for i := range n {
		ls, secret := scaleListenerSet(shapeOwners, i)
		if *ls.Spec.ParentRef.Namespace != *measured.Spec.ParentRef.Namespace || ls.Spec.ParentRef.Name != measured.Spec.ParentRef.Name {
			t.Fatalf("ListenerSet %d: parent %s/%s, want the measured creates'", i, *ls.Spec.ParentRef.Namespace, ls.Spec.ParentRef.Name)
		}
		if secret.Namespace != ls.Namespace {
			t.Fatalf("ListenerSet %d in %s, its Secret in %s", i, ls.Namespace, secret.Namespace)
		}
		owners[ls.Namespace] = true
		if strings.HasPrefix(string(*ls.Spec.Listeners[0].Hostname), "*.") {
			wildcards++
		}
		ls.CreationTimestamp = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second))
		cluster.Sets = append(cluster.Sets, ls)
	}
	if len(owners) != validationtest.Owners || wildcards != validationtest.Owners {
		t.Fatalf("%d owners, %d wildcard sets; want %d of each", len(owners), wildcards, validationtest.Owners)
	}
	opts := validation.Options{Cluster: cluster, Strict: true}
	judge := func(ls *gwv1.ListenerSet) (field.ErrorList, findings.Warnings) {
		return validation.Validate(ls, nil, opts)
	}
	for _, i := range []int{0, 1, validationtest.Owners + 1, n - 1} {
		if errs, warnings := judge(cluster.Sets[i]); len(errs) != 0 || len(warnings) != 0 {
			t.Errorf("stored ListenerSet %d: %v %v", i, errs, warnings)
		}
	}
	for _, mk := range []func(string) *gwv1.ListenerSet{measuredFor(shapeOwners), aloneFor(shapeOwners)} {
		if errs, warnings := judge(mk("m-1")); len(errs) != 0 || len(warnings) != 0 {
			t.Errorf("measured create: %v %v", errs, warnings)
		}
	}
	other := measuredFor(shapeOwners)("m-2")
	other.Spec.Listeners[1].Hostname = ptr.To(gwv1.Hostname("x." + validationtest.OwnerDomain(scaleMeasuredOwner+1)))
	if errs, _ := judge(other); len(errs) != 1 || findings.CodeOf(errs[0]) != validation.CodeHostnameNotDeclared {
		t.Errorf("a create on another owner's domain: %v, want one %s", errs, validation.CodeHostnameNotDeclared)
	}
}

// TestWorstTargetsAndProblems: the worst declarations' bounds are over
// every request of every size, and a verdict other than the shape's is a
// problem.
func TestWorstTargetsAndProblems(t *testing.T) {
	rs := []scaleSizeResult{{Worst: []worstResult{{Ms: 20, ResponseBytes: 40000, PeakRSSGrowthMiB: 3}}},
		{Worst: []worstResult{{Ms: 120, ResponseBytes: 800, PeakRSSGrowthMiB: 1}}}}
	got := worstTargets(rs)
	if len(got) != 3 || got[0].Value != 120 || got[0].Met || got[1].Value != 40000 || !got[1].Met || got[2].Value != 3 || !got[2].Met {
		t.Errorf("worstTargets = %+v; want the slowest 120 ms missed, 40000 bytes and 3 MiB met", got)
	}
	if worstTargets([]scaleSizeResult{{}}) != nil {
		t.Error("targets without worst requests")
	}
	deny := func(msg string) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{Message: msg}}
	}
	for _, tc := range []struct {
		shape string
		resp  *admissionv1.AdmissionResponse
		ok    bool
	}{
		{"over-the-limit", deny(fmt.Sprintf("... has 10000 entries, more than the limit of %d", validation.MaxAllowedHostnames)), true},
		{"over-the-limit", deny(`... has 10000 entries`), false},
		{"over-the-limit", &admissionv1.AdmissionResponse{Allowed: true}, false},
		{"hostile-entries", deny(`entry 1 "<>&\"\\\u2028\u2029\t\n\r\x00\x1b[31m\x7f"`), true},
		{"hostile-entries", deny("entry 1 \"<>&\x1b[31m\""), false},
		{"sixty-four-undeclared", deny(`hostname "l00..." is not among the hostnames Namespace "x" declares`), true},
	} {
		if got := worstProblem(tc.shape, tc.resp); (got == "") != tc.ok {
			t.Errorf("%s, %+v: problem %q, want ok=%v", tc.shape, tc.resp.Result, got, tc.ok)
		}
	}
}

// TestScaleRouteCreatesLayout: the route-creates shape at 10 000 sets and
// routes, judged as the webhook judges routes (the tenancy rules on, the
// first claim a warning): every populated route attaches and holds claims
// (a listener without a hostname, or its owner's wildcard), none of them
// and neither measured create earns an error or a warning, and the
// probes earn what routeProbes wants: the undeclared name refused, a
// populated set's name and a populated route's name warned of their
// holders.
func TestScaleRouteCreatesLayout(t *testing.T) {
	const n = 10000
	cluster := &validation.Objects{Gateways: []*gwv1.Gateway{scaleGatewayObject(0, scaleGateway), scaleGatewayObject(0, scaleAloneGateway)}}
	cluster.Namespaces = append(cluster.Namespaces, &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: scaleNS(1), Labels: map[string]string{scaleTeamLabel: "true"}}})
	for o := range validationtest.Owners {
		cluster.Namespaces = append(cluster.Namespaces, &metav1.PartialObjectMetadata{ObjectMeta: scaleOwnerNamespace(o).ObjectMeta})
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cluster.Sets = routeBaseSets()
	for i := range n {
		ls, _ := scaleListenerSet(shapeRouteCreates, i)
		ls.CreationTimestamp = metav1.NewTime(start.Add(time.Duration(i) * time.Second))
		cluster.Sets = append(cluster.Sets, ls)
	}
	for j := range n {
		r := claimRoute(j)
		r.CreationTimestamp = metav1.NewTime(start.Add(time.Duration(n+j) * time.Second))
		cluster.Routes = append(cluster.Routes, r)
	}
	opts := validation.Options{Cluster: cluster, Routes: cluster}
	judge := func(r *gwv1.HTTPRoute) *validation.Report {
		t.Helper()
		rep := validation.JudgeRoute(r, nil, opts)
		if !rep.Scope.Judge {
			t.Errorf("route %s/%s: not judged", r.Namespace, r.Name)
		}
		return rep
	}
	for _, j := range []int{0, 1, validationtest.Owners, validationtest.Owners + 1, 2 * validationtest.Owners, n - 1} {
		r := cluster.Routes[j]
		if !holdsClaims(cluster, r) {
			t.Errorf("route %d: its listener %s/%s.%s is missing or has a hostname that gives it no claim on %v", j, r.Namespace,
				r.Spec.ParentRefs[0].Name, *r.Spec.ParentRefs[0].SectionName, r.Spec.Hostnames)
		}
		if rep := judge(r); rep.Errors.Total() != 0 || rep.Warnings.Total() != 0 {
			t.Errorf("route %d: %v %v", j, rep.Errors.List(), rep.Warnings.List())
		}
	}
	measured, alone := createsFor(shapeRouteCreates)
	for _, mk := range []func(string) client.Object{measured, alone} {
		if rep := judge(mk("m-1").(*gwv1.HTTPRoute)); rep.Errors.Total() != 0 || rep.Warnings.Total() != 0 {
			t.Errorf("measured create: %v %v", rep.Errors.List(), rep.Warnings.List())
		}
	}
	for _, p := range routeProbes(n) {
		rep := judge(p.obj.(*gwv1.HTTPRoute))
		var got []string
		for _, e := range rep.Errors.List() {
			got = append(got, e.Error())
		}
		if !p.denied {
			if len(got) != 0 {
				t.Errorf("probe %q: errors %q", p.name, got)
			}
			got = rep.Warnings.List().Strings()
		}
		if !probeOK(got, p.want, p.wantAny...) {
			t.Errorf("probe %q: got %q, want %q %v", p.name, got, p.want, p.wantAny)
		}
	}
}

// holdsClaims: r's one parentRef names a listener of a set of c that has
// no hostname, or a wildcard covering each of r's hostnames, so that each
// is r's claim (validation/internal/routes/routeclaims.go).
func holdsClaims(c *validation.Objects, r *gwv1.HTTPRoute) bool {
	ref := r.Spec.ParentRefs[0]
	ls, _ := c.ListenerSet(r.Namespace, string(ref.Name))
	if ls == nil || ref.SectionName == nil {
		return false
	}
	for _, l := range ls.Spec.Listeners {
		if l.Name != *ref.SectionName {
			continue
		}
		for _, h := range r.Spec.Hostnames {
			if l.Hostname != nil && !(strings.HasPrefix(string(*l.Hostname), "*.") && validation.Covers(string(*l.Hostname), string(h))) {
				return false
			}
		}
		return len(r.Spec.Hostnames) > 0
	}
	return false
}
