package main

// The scale figure (make bench-scale, go run ./test/load -scale): what the
// cluster-aware checks cost as the cluster grows. For each size it fills the
// local kube-apiserver with that many ListenerSets spread over 100 Gateways
// in 100 namespaces, starts `listenerset-webhook serve --cluster-checks
// --watch-secrets` against it, registers it as installed and times
// sequential creates through kube-apiserver (docs/performance.md, "Scale").
// -scale-shape=one-gateway puts every ListenerSet on the first Gateway
// instead, as tenants share one (docs/performance.md, "Cluster scale");
// -scale-shape=owners too, spread over 1 000 owner namespaces that each
// declare their domain, every hostname under its owner's
// (validationtest.OwnedSetOf; docs/performance.md, "Owners");
// -scale-shape=route-creates as owners, with as many HTTPRoutes holding
// claims, and times HTTPRoute creates (scale_routes.go).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/clusterview"
)

var (
	scaleMode    = flag.Bool("scale", false, "run the scale figure only (make bench-scale): ListenerSets in the cluster against the cluster-aware checks' latency, CPU, RSS and time to ready")
	scaleSizes   = flag.String("sizes", "0,1000,10000", "scale figure: numbers of ListenerSets in the cluster, comma-separated (run in ascending order)")
	scaleCreates = flag.Int("scale-creates", 500, "scale figure: measured sequential creates per size, each deleted again (and as many with no webhook registered)")
	scaleWorkers = flag.Int("scale-workers", 32, "scale figure: parallel writes while populating")
	scaleSettle  = flag.Duration("scale-settle", 2*time.Second, "scale figure: wait after the measured creates before reading the webhook's RSS")
	scalePprof   = flag.Duration("scale-pprof", 0, "scale figure: write a CPU profile of the webhook over this long from the start of the measured creates to scale-<size>[-<shape>].cpu.pprof (0: none)")
	scaleRoutes  = flag.Int("scale-routes", 0, "scale figure: HTTPRoutes attached to the populated ListenerSets, spread evenly (by sectionName http, each set's hostname); "+
		"for -scale-updates to compare a run with 0 against")
	scaleUpdates = flag.Bool("scale-updates", false, "scale figure: also time -scale-creates UPDATEs of the first populated set that change a label (no route is detached)")
	scaleShape   = flag.String("scale-shape", shapeGateways, "scale figure: "+shapeGateways+" (the ListenerSets spread over 100 Gateways) or "+
		shapeOneGateway+" (every one on the first Gateway, on 443 and 80 with its own hostname: tenants sharing a Gateway) or "+
		shapeOwners+" (as "+shapeOneGateway+", in 1 000 owner namespaces each declaring its domain, which holds its sets' hostnames, a wildcard among them) or "+
		shapeRouteCreates+" (as "+shapeOwners+", with listeners without a hostname among the sets and as many HTTPRoutes holding claims on them and on the wildcards; "+
		"the measured creates are HTTPRoutes; -scale-routes does not apply)")
)

// The shapes of the scale figure's cluster (-scale-shape).
const (
	shapeGateways   = "gateways"
	shapeOneGateway = "one-gateway"
	shapeOwners     = "owners"
)

// scaleShapes are the shapes -scale-shape takes.
var scaleShapes = []string{shapeGateways, shapeOneGateway, shapeOwners, shapeRouteCreates}

// checkShape refuses a -scale-shape that is not one of scaleShapes.
func checkShape(shape string) error {
	if !slices.Contains(scaleShapes, shape) {
		return fmt.Errorf("-scale-shape %q: want one of %s", shape, strings.Join(scaleShapes, ", "))
	}
	return nil
}

// oneGateway tells whether every ListenerSet of the shape is on the first
// Gateway, which the measured creates are made on.
func oneGateway(shape string) bool { return shape != shapeGateways }

// The shape of the cluster: scaleNamespaces namespaces, each with one
// Gateway, one ReferenceGrant and its share of the ListenerSets and their
// Secrets.
const (
	scaleNamespaces = 100
	scaleGateway    = "shared"
	// scaleAloneGateway, in the first namespace, never has ListenerSets:
	// creates attached to it do the same lookups with no rivals to merge.
	scaleAloneGateway = "alone"
	// scaleTeamLabel selects the namespaces the Gateways admit ListenerSets from.
	scaleTeamLabel = "scale.listenerset-webhook.test/team"
	// scaleOutsider is a namespace without that label: a ListenerSet in it is NotAllowed.
	scaleOutsider = "scale-outsider"
	// scaleSharedSecret, in the first namespace, is what the measured
	// creates reference from the second one, through that namespace's
	// ReferenceGrant.
	scaleSharedSecret = "shared-tls"
	scaleWarmup       = 20
)

// The kinds the webhook watches with --cluster-checks --watch-secrets and
// its default scope; ready means /readyz answers and every one's synced
// gauge is 1.
var scaleKinds = []string{clusterview.KindGateway, clusterview.KindGatewayClass, clusterview.KindListenerSet, clusterview.KindReferenceGrant, clusterview.KindNamespace, clusterview.KindSecret,
	clusterview.KindHTTPRoute}

func scaleNS(i int) string { return fmt.Sprintf("scale-%02d", i%scaleNamespaces) }

// The targets of the scale figure (gateways shape).
const (
	targetP50Ratio  = 1.1  // p50 at the largest size <= 1.1 x p50 at the smallest
	targetRSSKiB    = 10.0 // RSS growth per cached ListenerSet, KiB
	targetReadySecs = 10.0 // process start to ready with all caches synced, at the largest size
	// one-gateway and owners shapes: a create's CPU and allocations in
	// the webhook at the largest size <= 1.2 x at the smallest.
	targetOneGatewayRatio = 1.2
)

type scaleReport struct {
	Machine           machine           `json:"machine"`
	Command           string            `json:"command"`
	Shape             string            `json:"shape"`
	Namespaces        int               `json:"namespaces"`
	Gateways          int               `json:"gateways"`
	ReferenceGrants   int               `json:"referenceGrants"`
	CreatesPerSize    int               `json:"createsPerSize"`
	ControlPlaneStart float64           `json:"controlPlaneStartSeconds"`
	Sizes             []scaleSizeResult `json:"sizes"`
	Targets           []ratio           `json:"targets"`
	LoadAvgEnd        string            `json:"loadAverageAtEnd"`
	FinishedAt        string            `json:"finishedAt"`
	Failures          []string          `json:"failures"`
	LastLine          string            `json:"lastLine"`
}

type scaleSizeResult struct {
	ListenerSets    int     `json:"listenerSets"`
	Secrets         int     `json:"secrets"`
	PopulateSeconds float64 `json:"populateSeconds"`
	// Creates with no webhook registered, at the same size (the webhook
	// running and watching): what kube-apiserver and etcd cost alone.
	NoWebhookP50Ms float64 `json:"noWebhookP50Ms"`
	NoWebhookP99Ms float64 `json:"noWebhookP99Ms"`
	Creates        int     `json:"creates"`
	MeanMs         float64 `json:"meanMs"`
	P50Ms          float64 `json:"p50Ms"`
	P99Ms          float64 `json:"p99Ms"`
	// WebhookRequests answered during the measured creates (mutating and
	// validating), and the webhook's CPU time over them per request.
	WebhookRequests float64 `json:"webhookRequests"`
	CPUPerRequestUs float64 `json:"cpuPerRequestUs"`
	// The webhook's allocations over them per request (go_memstats_mallocs_total
	// and go_memstats_alloc_bytes_total; -1 when not exported).
	AllocsPerRequest   float64 `json:"allocsPerRequest"`
	AllocKiBPerRequest float64 `json:"allocKiBPerRequest"`
	// WatchCPUPerCreateUs is the webhook's CPU per create (and delete) of
	// the creates with no webhook registered: its informers following the
	// writes, without answering any.
	WatchCPUPerCreateUs float64 `json:"watchCpuPerCreateUs"`
	// The same creates on the Gateway that has no ListenerSets: the
	// lookups without rivals to merge.
	AloneP50Ms            float64 `json:"aloneGatewayP50Ms"`
	AloneP99Ms            float64 `json:"aloneGatewayP99Ms"`
	AloneCPUPerRequestUs  float64 `json:"aloneGatewayCpuPerRequestUs"`
	AloneAllocsPerRequest float64 `json:"aloneGatewayAllocsPerRequest"`
	RSSMiB                float64 `json:"rssMiB"`
	HeapInuseMiB          float64 `json:"heapInuseMiB"` // go_memstats_heap_inuse_bytes, -1 when not exported
	// ReadyzSeconds: process start to /readyz answering; ReadySeconds: to
	// /readyz answering and every kind synced.
	ReadyzSeconds float64 `json:"readyzSeconds"`
	ReadySeconds  float64 `json:"readySeconds"`
	// Warnings on the measured creates (none expected).
	Warnings int `json:"warnings"`
	// Routes are the HTTPRoutes attached to the sets (-scale-routes);
	// Updates the timed label updates of the first set, with the webhook's
	// CPU and allocations per request over them.
	Routes                 int     `json:"routes"`
	Updates                int     `json:"updates"`
	UpdateP50Ms            float64 `json:"updateP50Ms"`
	UpdateCPUPerRequestUs  float64 `json:"updateCpuPerRequestUs"`
	UpdateAllocsPerRequest float64 `json:"updateAllocsPerRequest"`
	// RoutesPopulateSeconds is how long creating the routes took.
	RoutesPopulateSeconds float64       `json:"routesPopulateSeconds"`
	Probes                []probeResult `json:"probes"`
	// Worst are the worst requests: the declarations' (-scale-worst) and
	// the route-creates shape's worst route.
	Worst []worstResult `json:"worst,omitempty"`
}

type probeResult struct {
	Name     string   `json:"name"`
	Want     string   `json:"want"`
	Warnings []string `json:"warnings"`
	OK       bool     `json:"ok"`
}

// warningCounter collects the warnings kube-apiserver returns (the
// webhook's, among them).
type warningCounter struct {
	mu  sync.Mutex
	all []string
}

func (w *warningCounter) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	w.all = append(w.all, text)
	w.mu.Unlock()
}

func (w *warningCounter) since(n int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.all[n:])
}

func (w *warningCounter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.all)
}

// parseSizes reads -sizes: non-negative, distinct, returned ascending.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("-sizes %q: want non-negative integers", s)
		}
		if slices.Contains(sizes, n) {
			return nil, fmt.Errorf("-sizes %q: %d twice", s, n)
		}
		sizes = append(sizes, n)
	}
	slices.Sort(sizes)
	return sizes, nil
}

// sizeLabel names a size as the last line does: 0, 500, 1k, 10k, 2.5k.
func sizeLabel(n int) string {
	if n < 1000 {
		return strconv.Itoa(n)
	}
	return strconv.FormatFloat(float64(n)/1000, 'f', -1, 64) + "k"
}

// scaleLastLine is the figure's last line, over every size run.
func scaleLastLine(rs []scaleSizeResult) string {
	var labels, p50, rss []string
	for _, r := range rs {
		labels = append(labels, sizeLabel(r.ListenerSets))
		p50 = append(p50, fmt.Sprintf("%.2f", r.P50Ms))
		rss = append(rss, fmt.Sprintf("%.1f", r.RSSMiB))
	}
	l := strings.Join(labels, "/")
	last := scaleSizeResult{}
	if len(rs) > 0 {
		last = rs[len(rs)-1]
	}
	return fmt.Sprintf("scale: p50 %s = %s ms; rss %s = %s MiB; ready %s = %.1f s",
		l, strings.Join(p50, "/"), l, strings.Join(rss, "/"), sizeLabel(last.ListenerSets), last.ReadySeconds)
}

// scaleTargets compares the largest size with the smallest (0 and 10 000 by
// default): p50 ratio, RSS growth per ListenerSet in KiB, time to ready.
func scaleTargets(rs []scaleSizeResult, shape string) []ratio {
	if len(rs) == 0 {
		return nil
	}
	first, last := rs[0], rs[len(rs)-1]
	a, b := sizeLabel(first.ListenerSets), sizeLabel(last.ListenerSets)
	var out []ratio
	if len(rs) > 1 {
		p50 := last.P50Ms / first.P50Ms
		out = append(out, ratio{fmt.Sprintf("p50 at %s / p50 at %s", b, a), p50, fmt.Sprintf("<= %.2f", targetP50Ratio), p50 <= targetP50Ratio})
		perLS := (last.RSSMiB - first.RSSMiB) * 1024 / float64(last.ListenerSets-first.ListenerSets)
		out = append(out, ratio{fmt.Sprintf("RSS growth %s to %s per ListenerSet, KiB", a, b), perLS, fmt.Sprintf("<= %.1f", targetRSSKiB), perLS <= targetRSSKiB})
	}
	out = append(out, ratio{fmt.Sprintf("start to ready (all caches synced) at %s, s", b), last.ReadySeconds, fmt.Sprintf("<= %.1f", targetReadySecs), last.ReadySeconds <= targetReadySecs})
	if len(rs) > 1 {
		noWh := last.NoWebhookP50Ms / first.NoWebhookP50Ms
		out = append(out, ratio{fmt.Sprintf("no webhook: p50 at %s / p50 at %s (for reference)", b, a), noWh, "-", true})
		cpu := last.CPUPerRequestUs / first.CPUPerRequestUs
		allocs := last.AllocsPerRequest / first.AllocsPerRequest
		if oneGateway(shape) {
			target := fmt.Sprintf("<= %.2f", targetOneGatewayRatio)
			out = append(out, ratio{fmt.Sprintf("webhook CPU per request at %s / at %s", b, a), cpu, target, cpu <= targetOneGatewayRatio})
			out = append(out, ratio{fmt.Sprintf("webhook allocations per request at %s / at %s", b, a), allocs, target, allocs <= targetOneGatewayRatio})
		} else {
			out = append(out, ratio{fmt.Sprintf("webhook CPU per request at %s / at %s (for reference)", b, a), cpu, "-", true})
			out = append(out, ratio{fmt.Sprintf("webhook allocations per request at %s / at %s (for reference)", b, a), allocs, "-", true})
		}
		alone := last.AloneP50Ms / first.AloneP50Ms
		out = append(out, ratio{fmt.Sprintf("alone Gateway: p50 at %s / at %s (for reference)", b, a), alone, "-", true})
		aloneCPU := last.AloneCPUPerRequestUs / first.AloneCPUPerRequestUs
		out = append(out, ratio{fmt.Sprintf("alone Gateway: CPU per request at %s / at %s (for reference)", b, a), aloneCPU, "-", true})
		// The same server at the same time, so the machine's other work
		// and the process's heap weigh on both: what the sets on the
		// Gateway cost a create, without the swing between two servers
		// minutes apart.
		if last.AloneCPUPerRequestUs > 0 {
			same := last.CPUPerRequestUs / last.AloneCPUPerRequestUs
			out = append(out, ratio{fmt.Sprintf("at %s: CPU per request on the shared Gateway / on the alone Gateway, one server (for reference)", b), same, "-", true})
		}
	}
	return out
}

// parseMetrics reads the gauges the figure needs from a /metrics text: the
// cluster view's synced gauge per kind, and the Go heap in use (-1 when the
// binary does not export it).
func parseMetrics(text string) (synced map[string]float64, heapInuse float64) {
	synced, heapInuse, _, _ = parseAllMetrics(text)
	return synced, heapInuse
}

// parseAllMetrics is parseMetrics with the Go runtime's allocation
// counters too (-1 when not exported).
func parseAllMetrics(text string) (synced map[string]float64, heapInuse, mallocs, allocBytes float64) {
	synced, heapInuse, mallocs, allocBytes = map[string]float64{}, -1, -1, -1
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if i < 0 || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		name := line[:i]
		switch {
		case strings.HasPrefix(name, clusterview.SyncedMetric+"{"):
			if _, kind, ok := strings.Cut(name, `kind="`); ok {
				kind, _, _ = strings.Cut(kind, `"`)
				synced[kind] = v
			}
		case name == "go_memstats_heap_inuse_bytes":
			heapInuse = v
		case name == "go_memstats_mallocs_total":
			mallocs = v
		case name == "go_memstats_alloc_bytes_total":
			allocBytes = v
		}
	}
	return synced, heapInuse, mallocs, allocBytes
}

// allSynced: every kind has its gauge, at 1.
func allSynced(synced map[string]float64, kinds []string) bool {
	for _, k := range kinds {
		if synced[k] != 1 {
			return false
		}
	}
	return true
}

func (s *server) metricsText() (string, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + s.ports.MetricsAddr() + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, err = bufio.NewReader(resp.Body).WriteTo(&b)
	return b.String(), err
}

// scaleCluster is the control plane with the figure's client and objects.
type scaleCluster struct {
	lc        *localcluster.Cluster
	cl        client.Client
	warnings  *warningCounter
	ca        []byte
	certDir   string
	populated int
	routes    int
}

func runScale(ctx context.Context, o options) (int, error) {
	sizes, err := parseSizes(*scaleSizes)
	if err != nil {
		return 0, err
	}
	if *scaleCreates < 1 || *scaleWorkers < 1 {
		return 0, errors.New("-scale-creates and -scale-workers must be positive")
	}
	root, abs, err := repoPaths()
	if err != nil {
		return 0, err
	}
	o.oursBin, o.outDir = abs(o.oursBin), abs(o.outDir)
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return 0, err
	}
	if err := checkShape(*scaleShape); err != nil {
		return 0, err
	}
	rep := scaleReport{
		Machine: describeMachine(root), Command: strings.Join(os.Args, " "), Shape: *scaleShape, Namespaces: scaleNamespaces,
		Gateways: scaleNamespaces, ReferenceGrants: scaleNamespaces, CreatesPerSize: *scaleCreates,
	}
	if ownedShape(*scaleShape) {
		rep.Namespaces += validationtest.Owners
	}
	say("scale: commit %s, load average %s; sizes %v, %d measured creates per size", rep.Machine.Commit, rep.Machine.LoadAvgStart, sizes, *scaleCreates)
	if o.build {
		say("scale: building %s", testproc.WebhookPackage)
		if err := testproc.Build(ctx, o.oursBin, testproc.WebhookPackage, "-trimpath"); err != nil {
			return 0, err
		}
	}

	say("scale: starting etcd and kube-apiserver (hack/k8s-binaries.sh builds them the first time, ~11 min)")
	t0 := time.Now()
	lc, err := localcluster.Start(ctx, localcluster.Options{Root: root, Progress: os.Stderr})
	if err != nil {
		return 0, err
	}
	rep.ControlPlaneStart = time.Since(t0).Seconds()
	results, runErr := func() ([]scaleSizeResult, error) {
		defer lc.Stop()
		sc, err := newScaleCluster(ctx, lc, o.outDir)
		if err != nil {
			return nil, err
		}
		if err := sc.base(ctx); err != nil {
			return nil, fmt.Errorf("creating namespaces, Gateways and ReferenceGrants: %w", err)
		}
		var results []scaleSizeResult
		for _, n := range sizes {
			r, err := sc.measure(ctx, o, n)
			if err != nil {
				return results, fmt.Errorf("%d ListenerSets: %w", n, err)
			}
			results = append(results, r)
		}
		return results, nil
	}()
	if runErr != nil {
		return 0, runErr
	}
	rep.Sizes = results
	rep.Targets = append(scaleTargets(results, rep.Shape), worstTargets(results)...)
	for _, r := range results {
		for _, p := range r.Probes {
			if !p.OK {
				rep.Failures = append(rep.Failures, fmt.Sprintf("%d ListenerSets: probe %q: want %s, got warnings %q", r.ListenerSets, p.Name, p.Want, p.Warnings))
			}
		}
		if r.Warnings > 0 {
			rep.Failures = append(rep.Failures, fmt.Sprintf("%d ListenerSets: %d warnings on the measured creates, want none", r.ListenerSets, r.Warnings))
		}
		for _, w := range r.Worst {
			if w.Problem != "" {
				rep.Failures = append(rep.Failures, fmt.Sprintf("%d ListenerSets: worst declaration %s: %s (message %q)", r.ListenerSets, w.Shape, w.Problem, w.Message))
			}
		}
	}
	rep.LoadAvgEnd = loadAvg()
	rep.FinishedAt = time.Now().UTC().Format(time.RFC3339)
	rep.LastLine = scaleLastLine(results)
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return 0, err
	}
	out := filepath.Join(o.outDir, scaleFile(rep.Shape, "scale", ".json"))
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return 0, err
	}
	printScale(rep, out)
	if len(rep.Failures) > 0 {
		return 1, nil
	}
	return 0, nil
}

func printScale(rep scaleReport, jsonPath string) {
	spread := fmt.Sprintf("spread over %d Gateways", rep.Gateways)
	switch rep.Shape {
	case shapeOneGateway:
		spread = fmt.Sprintf("all on the first of %d Gateways (one-gateway shape)", rep.Gateways)
	case shapeOwners:
		spread = fmt.Sprintf("all on the first of %d Gateways, in %d owner namespaces each declaring its domain (owners shape; the measured creates: owner %d's),",
			rep.Gateways, validationtest.Owners, scaleMeasuredOwner)
	case shapeRouteCreates:
		spread = fmt.Sprintf("all on the first of %d Gateways, in %d owner namespaces each declaring its domain, and as many HTTPRoutes holding claims "+
			"(route-creates shape; the measured creates: owner %d's HTTPRoutes on its set %s, a listener without a hostname),",
			rep.Gateways, validationtest.Owners, scaleMeasuredOwner, routeSideSet)
	}
	fmt.Printf("\nScale: ListenerSets %s in %d namespaces, one Secret per ListenerSet, one ReferenceGrant per namespace;\n"+
		"webhook serve --cluster-checks --watch-secrets, registered as installed (mutating with matchConditions);\n"+
		"%d sequential %s per size through kube-apiserver on the first Gateway (size/100 other ListenerSets, all in the other shapes) and as many on\n"+
		"a Gateway without ListenerSets (alone), each deleted again; watch µs/cr.: the webhook's CPU per create while not\n"+
		"registered (its informers following the writes) (control plane up in %.1fs)\n",
		spread, rep.Namespaces, rep.CreatesPerSize, measuredKind(rep.Shape), rep.ControlPlaneStart)
	fmt.Printf("%-12s %9s %15s %8s %8s %8s %8s %10s %10s %12s %10s %10s %8s %9s %9s %8s %7s\n",
		"ListenerSets", "populate", "no-webhook p50", "p50 ms", "p99 ms", "mean ms", "requests", "CPU µs/req", "allocs/req", "watch µs/cr.",
		"alone p50", "alone CPU", "RSS MiB", "heap MiB", "readyz s", "ready s", "probes")
	for _, r := range rep.Sizes {
		ok := 0
		for _, p := range r.Probes {
			if p.OK {
				ok++
			}
		}
		heap := "-"
		if r.HeapInuseMiB >= 0 {
			heap = fmt.Sprintf("%.1f", r.HeapInuseMiB)
		}
		fmt.Printf("%-12d %8.1fs %12.2f ms %8.2f %8.2f %8.2f %8.0f %10.0f %10.0f %12.0f %10.2f %10.0f %8.1f %9s %9.2f %8.2f %5d/%d\n",
			r.ListenerSets, r.PopulateSeconds, r.NoWebhookP50Ms, r.P50Ms, r.P99Ms, r.MeanMs, r.WebhookRequests, r.CPUPerRequestUs, r.AllocsPerRequest,
			r.WatchCPUPerCreateUs, r.AloneP50Ms, r.AloneCPUPerRequestUs, r.RSSMiB, heap, r.ReadyzSeconds, r.ReadySeconds, ok, len(r.Probes))
	}
	for _, r := range rep.Sizes {
		if rep.Shape == shapeRouteCreates {
			fmt.Printf("%d ListenerSets: %d HTTPRoutes holding claims (created in %.1fs)\n", r.ListenerSets, r.Routes, r.RoutesPopulateSeconds)
		}
		if r.Updates > 0 {
			fmt.Printf("%d ListenerSets, %d HTTPRoutes attached (created in %.1fs): %d label updates of one set: p50 %.2f ms, CPU %.0f µs/req, %.0f allocs/req\n",
				r.ListenerSets, r.Routes, r.RoutesPopulateSeconds, r.Updates, r.UpdateP50Ms, r.UpdateCPUPerRequestUs, r.UpdateAllocsPerRequest)
		}
	}
	printWorst(rep.Sizes)
	fmt.Println()
	for _, r := range rep.Targets {
		printRatio(r)
	}
	fmt.Printf("\nload average: %s at start, %s at end (2 cores: above 2, other work competed)\n", rep.Machine.LoadAvgStart, rep.LoadAvgEnd)
	fmt.Printf("commit: %s\n", rep.Machine.Commit)
	var missed []string
	for _, t := range rep.Targets {
		if !t.Met {
			missed = append(missed, fmt.Sprintf("%s = %.3g (target %s)", t.What, t.Value, t.Target))
		}
	}
	if len(missed) == 0 {
		fmt.Println("targets: all met")
	} else {
		fmt.Printf("targets missed (%d): %s\n", len(missed), strings.Join(missed, "; "))
	}
	fmt.Printf("written: %s\n", jsonPath)
	for _, f := range rep.Failures {
		fmt.Println("FAIL:", f)
	}
	fmt.Println(rep.LastLine)
}

func newScaleCluster(ctx context.Context, lc *localcluster.Cluster, outDir string) (*scaleCluster, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := gwv1.Install(scheme); err != nil {
		return nil, err
	}
	w := &warningCounter{}
	cfg := rest.CopyConfig(lc.Config)
	cfg.QPS = -1 // no client-side rate limit, for the parallel writes and the sequential creates
	cfg.WarningHandlerWithContext = w
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	cert, err := localcluster.NewServingCert(filepath.Join(outDir, "scale-certs"), "127.0.0.1", "localhost")
	if err != nil {
		return nil, err
	}
	return &scaleCluster{lc: lc, cl: cl, warnings: w, ca: cert.CAPEM, certDir: cert.Dir}, nil
}

// base creates what every size has: the namespaces (labelled as the
// Gateways' selector wants, and one outsider), a Gateway, a ReferenceGrant
// and a Secret shared-tls in each (the measured creates reference the first
// namespace's; the probes the others).
func (c *scaleCluster) base(ctx context.Context) error {
	t0 := time.Now()
	var objs []client.Object
	for i := range scaleNamespaces {
		ns := scaleNS(i)
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{scaleTeamLabel: "true"}}})
	}
	objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: scaleOutsider}})
	if ownedShape(*scaleShape) {
		for o := range validationtest.Owners {
			objs = append(objs, scaleOwnerNamespace(o))
		}
	}
	if err := c.createAll(ctx, objs); err != nil {
		return err
	}
	objs = objs[:0]
	for i := range scaleClasses {
		objs = append(objs, scaleClass(i))
	}
	for i := range scaleNamespaces {
		objs = append(objs, scaleGatewayObject(i, scaleGateway), scaleGrant(i))
	}
	objs = append(objs, scaleGatewayObject(0, scaleAloneGateway))
	for i := range scaleNamespaces {
		objs = append(objs, scaleSecret(scaleNS(i), scaleSharedSecret))
	}
	objs = append(objs, scaleSecret(scaleOutsider, scaleSharedSecret))
	if ownedShape(*scaleShape) {
		objs = append(objs, scaleSecret(validationtest.OwnerNamespace(scaleMeasuredOwner), scaleSharedSecret))
	}
	if *scaleShape == shapeRouteCreates {
		for _, ls := range routeBaseSets() {
			objs = append(objs, ls)
		}
	}
	if err := c.createAll(ctx, objs); err != nil {
		return err
	}
	// No controller runs here: Airlock's class gets the status one would
	// write, or every measured create is warned that it stays Pending.
	if err := localcluster.AcceptClass(ctx, c.cl, scaleGatewayClass); err != nil {
		return err
	}
	owners := ""
	if ownedShape(*scaleShape) {
		owners = fmt.Sprintf(", %d owner namespaces with declarations", validationtest.Owners)
	}
	say("scale: %d namespaces (and %s%s), %d GatewayClasses, %d Gateways, %d ReferenceGrants in %.1fs", scaleNamespaces, scaleOutsider, owners, scaleClasses, scaleNamespaces, scaleNamespaces, time.Since(t0).Seconds())
	return c.warmWatches(ctx)
}

// warmWatches opens, once, the watches the webhook's informers open (a
// watch-list: the initial objects, then a bookmark), so the first size's
// time to ready is the webhook's: a fresh kube-apiserver made the first
// watch-list of ListenerSets wait 1.0s for that bookmark, and later ones
// 2ms; a webhook restarting in a real cluster meets a warm one.
func (c *scaleCluster) warmWatches(ctx context.Context) error {
	dc, err := dynamic.NewForConfig(c.lc.Config)
	if err != nil {
		return err
	}
	t0 := time.Now()
	for _, r := range []schema.GroupVersionResource{
		{Group: gwv1.GroupName, Version: "v1", Resource: "gateways"},
		{Group: gwv1.GroupName, Version: "v1", Resource: "listenersets"},
		{Group: gwv1.GroupName, Version: "v1", Resource: "referencegrants"},
		{Version: "v1", Resource: "namespaces"},
		{Version: "v1", Resource: "secrets"},
	} {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		w, err := dc.Resource(r).Watch(wctx, metav1.ListOptions{
			SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
		})
		if err != nil {
			cancel()
			return fmt.Errorf("watch-list of %s: %w", r.Resource, err)
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Bookmark || ev.Type == watch.Error {
				break
			}
		}
		w.Stop()
		cancel()
	}
	say("scale: kube-apiserver's watches warmed up in %.2fs", time.Since(t0).Seconds())
	return nil
}

// createAll creates objs with -scale-workers parallel writers.
func (c *scaleCluster) createAll(ctx context.Context, objs []client.Object) error {
	return parallel(ctx, len(objs), *scaleWorkers, func(ctx context.Context, i int) error {
		return c.cl.Create(ctx, objs[i])
	})
}

// parallel runs do(0..n-1) on workers goroutines and returns the first error.
func parallel(ctx context.Context, n, workers int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := do(ctx, i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return firstErr
}

// populate adds ListenerSets (each with its Secret and a status as a
// controller writes it) until there are n.
func (c *scaleCluster) populate(ctx context.Context, n int) (time.Duration, error) {
	from := c.populated
	if n <= from {
		return 0, nil
	}
	t0 := time.Now()
	var done atomic.Int64
	stop := make(chan struct{})
	var progress sync.WaitGroup
	progress.Add(1)
	go func() {
		defer progress.Done()
		tick := time.NewTicker(3 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				d := done.Load()
				say("scale: populating: %d of %d ListenerSets (with Secret and status), %.0f/s", int64(from)+d, n, float64(d)/time.Since(t0).Seconds())
			}
		}
	}()
	err := parallel(ctx, n-from, *scaleWorkers, func(ctx context.Context, k int) error {
		i := from + k
		ls, secret := scaleListenerSet(*scaleShape, i)
		if err := c.cl.Create(ctx, secret); err != nil {
			return fmt.Errorf("secret %s/%s: %w", secret.Namespace, secret.Name, err)
		}
		if err := c.cl.Create(ctx, ls); err != nil {
			return fmt.Errorf("listenerset %s/%s: %w", ls.Namespace, ls.Name, err)
		}
		ls.Status = scaleStatus(ls)
		if err := c.cl.Status().Update(ctx, ls); err != nil {
			return fmt.Errorf("listenerset %s/%s status: %w", ls.Namespace, ls.Name, err)
		}
		done.Add(1)
		return nil
	})
	close(stop)
	progress.Wait()
	if err != nil {
		return 0, err
	}
	c.populated = n
	d := time.Since(t0)
	say("scale: populated %d ListenerSets (%d new, with Secrets and status) in %.1fs, %.0f/s", n, n-from, d.Seconds(), float64(n-from)/d.Seconds())
	return d, nil
}

// measure runs one size: populate, creates without a webhook, then the
// webhook started, timed to ready, registered, probed and measured.
func (c *scaleCluster) measure(ctx context.Context, o options, n int) (scaleSizeResult, error) {
	r := scaleSizeResult{ListenerSets: n, Secrets: n + scaleNamespaces + 1}
	d, err := c.populate(ctx, n)
	if err != nil {
		return r, err
	}
	r.PopulateSeconds = d.Seconds()
	routeCount := *scaleRoutes
	if *scaleShape == shapeRouteCreates {
		routeCount = n
	}
	if r.RoutesPopulateSeconds, err = c.populateRoutes(ctx, n, routeCount); err != nil {
		return r, err
	}
	r.Routes = c.routes

	say("scale: %d ListenerSets: starting the webhook with --cluster-checks --watch-secrets", n)
	args := append(append([]string{"serve"}, testproc.ServeFlags()...), "--scope=class", "--cluster-checks", "--watch-secrets", "--kubeconfig="+c.lc.KubeconfigPath)
	var pprofAddr string
	if *scalePprof > 0 {
		ports, err := testproc.NewPorts()
		if err != nil {
			return r, err
		}
		pprofAddr = ports.MetricsAddr()
		args = append(args, "--pprof-bind-address="+pprofAddr)
	}
	start := time.Now()
	srv, err := launchServer("ours", o.oursBin, args, c.certDir, filepath.Join(o.outDir, scaleFile(*scaleShape, fmt.Sprintf("scale-%d", n), ".log")))
	if err != nil {
		return r, err
	}
	defer srv.stop()
	readyz, ready, err := waitClusterReady(ctx, srv, start, 2*time.Minute)
	if err != nil {
		return r, fmt.Errorf("%w; log: %s", err, srv.proc.Log())
	}
	r.ReadyzSeconds, r.ReadySeconds = readyz.Seconds(), ready.Seconds()
	say("scale: %d ListenerSets: webhook ready in %.2fs (/readyz after %.2fs)", n, r.ReadySeconds, r.ReadyzSeconds)

	// kube-apiserver without the webhook registered (none is between
	// sizes), while the webhook watches: its CPU then is what following
	// the creates and deletes costs it.
	say("scale: %d ListenerSets: %d creates with no webhook registered", n, *scaleCreates)
	cpu0, m0, v0, err := cpuAndCalls(srv)
	if err != nil {
		return r, err
	}
	measured, alone := createsFor(*scaleShape)
	plain, err := c.creates(ctx, fmt.Sprintf("plain-%d", n), *scaleCreates, measured)
	if err != nil {
		return r, err
	}
	cpu1, m1, v1, err := cpuAndCalls(srv)
	if err != nil {
		return r, err
	}
	if m1 != m0 || v1 != v0 {
		return r, fmt.Errorf("the webhook answered %.0f requests while it was not registered", (m1-m0)+(v1-v0))
	}
	r.NoWebhookP50Ms, r.NoWebhookP99Ms = ms(percentile(plain, 50)), ms(percentile(plain, 99))
	r.WatchCPUPerCreateUs = float64((cpu1 - cpu0).Microseconds()) / float64(len(plain))

	ep := localcluster.WebhookEndpoint{BaseURL: srv.baseURL(), MutatePath: admission.MutatePath, ValidatePath: admission.ValidatePath,
		RoutePath: admission.ValidateRoutePath, CABundle: c.ca}
	if err := c.lc.RegisterWebhooks(ctx, ep, scaleNS(1)); err != nil {
		return r, err
	}
	r.Probes, err = c.probes(ctx, n)
	if err != nil {
		return r, err
	}
	if _, err := c.creates(ctx, fmt.Sprintf("warm-%d", n), scaleWarmup, measured); err != nil {
		return r, err
	}

	say("scale: %d ListenerSets: %d measured creates through the webhook", n, *scaleCreates)
	w0 := c.warnings.count()
	profiled := make(chan error, 1)
	if pprofAddr != "" {
		go func() {
			profiled <- cpuProfile(ctx, pprofAddr, *scalePprof, filepath.Join(o.outDir, scaleFile(*scaleShape, fmt.Sprintf("scale-%d", n), ".cpu.pprof")))
		}()
	}
	samples, use, err := c.timedCreates(ctx, srv, fmt.Sprintf("m-%d", n), measured)
	if err != nil {
		return r, err
	}
	if pprofAddr != "" {
		if err := <-profiled; err != nil {
			return r, err
		}
	}
	r.Creates = len(samples)
	var sum time.Duration
	for _, s := range samples {
		sum += s
	}
	r.MeanMs = ms(sum / time.Duration(len(samples)))
	r.P50Ms, r.P99Ms = ms(percentile(samples, 50)), ms(percentile(samples, 99))
	r.WebhookRequests = use.requests
	r.CPUPerRequestUs, r.AllocsPerRequest, r.AllocKiBPerRequest = use.cpuPerRequestUs(), use.allocsPerRequest(), use.allocKiBPerRequest()
	say("scale: %d ListenerSets: %d creates on the Gateway without ListenerSets", n, *scaleCreates)
	samples, use, err = c.timedCreates(ctx, srv, fmt.Sprintf("a-%d", n), alone)
	if err != nil {
		return r, err
	}
	r.AloneP50Ms, r.AloneP99Ms = ms(percentile(samples, 50)), ms(percentile(samples, 99))
	r.AloneCPUPerRequestUs, r.AloneAllocsPerRequest = use.cpuPerRequestUs(), use.allocsPerRequest()
	r.Warnings = c.warnings.count() - w0
	if *scaleUpdates && n > 0 {
		say("scale: %d ListenerSets, %d HTTPRoutes: %d label updates of the first set", n, c.routes, *scaleCreates)
		samples, use, err := c.timedUpdates(ctx, srv)
		if err != nil {
			return r, err
		}
		r.Updates, r.UpdateP50Ms = len(samples), ms(percentile(samples, 50))
		r.UpdateCPUPerRequestUs, r.UpdateAllocsPerRequest = use.cpuPerRequestUs(), use.allocsPerRequest()
		say("scale: updates p50 %.2fms, CPU %.0fµs/req, %.0f allocs/req", r.UpdateP50Ms, r.UpdateCPUPerRequestUs, r.UpdateAllocsPerRequest)
	}

	time.Sleep(*scaleSettle)
	rss, _, err := srv.memory()
	if err != nil {
		return r, err
	}
	r.RSSMiB = mib(rss)
	r.HeapInuseMiB = -1
	if text, err := srv.metricsText(); err == nil {
		if _, heap := parseMetrics(text); heap >= 0 {
			r.HeapInuseMiB = heap / (1 << 20)
		}
	}
	say("scale: %d ListenerSets: p50 %.2fms p99 %.2fms (no webhook: p50 %.2fms), %.0f requests, CPU %.0fµs/req, %.0f allocs/req, RSS %.1f MiB, ready %.2fs",
		n, r.P50Ms, r.P99Ms, r.NoWebhookP50Ms, r.WebhookRequests, r.CPUPerRequestUs, r.AllocsPerRequest, r.RSSMiB, r.ReadySeconds)
	if *scaleWorst {
		if r.Worst, err = c.worst(ctx, srv); err != nil {
			return r, fmt.Errorf("worst declarations: %w", err)
		}
	}
	if *scaleShape == shapeRouteCreates {
		w, err := c.worstRouteResult(ctx, srv)
		if err != nil {
			return r, err
		}
		r.Worst = append(r.Worst, w)
	}

	if err := c.lc.UnregisterWebhooks(ctx, scaleNS(1)); err != nil {
		return r, err
	}
	return r, nil
}

// usage is what the webhook spent over some creates: CPU time, requests
// answered, and the Go runtime's allocation counters (-1 when not exported).
type usage struct {
	cpu                       time.Duration
	requests, mallocs, allocB float64
}

func (u usage) cpuPerRequestUs() float64 {
	if u.requests == 0 {
		return 0
	}
	return float64(u.cpu.Microseconds()) / u.requests
}

func (u usage) allocsPerRequest() float64 {
	if u.requests == 0 || u.mallocs < 0 {
		return -1
	}
	return u.mallocs / u.requests
}

func (u usage) allocKiBPerRequest() float64 {
	if u.requests == 0 || u.allocB < 0 {
		return -1
	}
	return u.allocB / 1024 / u.requests
}

// timedCreates is creates of mk's ListenerSets with what the webhook spent
// over them (the allocations include its /metrics answer, once).
func (c *scaleCluster) timedCreates(ctx context.Context, srv *server, prefix string, mk func(string) client.Object) (samples []time.Duration, use usage, err error) {
	u0, err := readUsage(srv)
	if err != nil {
		return nil, usage{}, err
	}
	if samples, err = c.creates(ctx, prefix, *scaleCreates, mk); err != nil {
		return nil, usage{}, err
	}
	u1, err := readUsage(srv)
	if err != nil {
		return nil, usage{}, err
	}
	return samples, u1.since(u0), nil
}

// readUsage reads what the server has spent so far.
func readUsage(srv *server) (usage, error) {
	cpu, m, v, err := cpuAndCalls(srv)
	if err != nil {
		return usage{}, err
	}
	u := usage{cpu: cpu, requests: m + v, mallocs: -1, allocB: -1}
	if text, err := srv.metricsText(); err == nil {
		_, _, u.mallocs, u.allocB = parseAllMetrics(text)
	}
	return u, nil
}

// since is what was spent between u0 and u.
func (u usage) since(u0 usage) usage {
	d := usage{cpu: u.cpu - u0.cpu, requests: u.requests - u0.requests, mallocs: -1, allocB: -1}
	if u0.mallocs >= 0 && u.mallocs >= 0 {
		d.mallocs, d.allocB = u.mallocs-u0.mallocs, u.allocB-u0.allocB
	}
	return d
}

// cpuAndCalls reads the server's CPU time and its mutating and validating
// request counters.
func cpuAndCalls(s *server) (cpu time.Duration, mutate, validate float64, err error) {
	if cpu, err = s.cpu(); err != nil {
		return 0, 0, 0, err
	}
	mutate, validate, err = s.calls()
	return cpu, mutate, validate, err
}

// waitClusterReady polls until /readyz answers and every kind's synced gauge
// is 1, and returns the times from start to /readyz and to both.
func waitClusterReady(ctx context.Context, s *server, start time.Time, timeout time.Duration) (readyz, ready time.Duration, err error) {
	deadline := start.Add(timeout)
	var last map[string]float64
	for {
		if err := s.proc.Ended(); err != nil {
			return 0, 0, fmt.Errorf("the webhook ended before it was ready: %w", err)
		}
		if testproc.Ready(s.ports.ReadyzURL(), 2*time.Second) {
			if readyz == 0 {
				readyz = time.Since(start)
			}
			if text, err := s.metricsText(); err == nil {
				last, _ = parseMetrics(text)
				if allSynced(last, scaleKinds) {
					return readyz, time.Since(start), nil
				}
			}
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("not ready with every kind synced after %s (readyz after %s; synced gauges %v)", timeout, readyz, last)
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// creates times n sequential creates of mk's object (a ListenerSet or an
// HTTPRoute; unique names and hostnames) and deletes each again, untimed,
// so the cluster keeps its size.
func (c *scaleCluster) creates(ctx context.Context, prefix string, n int, mk func(string) client.Object) ([]time.Duration, error) {
	samples := make([]time.Duration, 0, n)
	for k := range n {
		obj := mk(fmt.Sprintf("%s-%d", prefix, k))
		t := time.Now()
		if err := c.cl.Create(ctx, obj); err != nil {
			return nil, fmt.Errorf("create %s: %w", obj.GetName(), err)
		}
		samples = append(samples, time.Since(t))
		if err := c.cl.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("delete %s: %w", obj.GetName(), err)
		}
	}
	slices.Sort(samples)
	return samples, nil
}

// probe is a dry-run create of obj (a ListenerSet or an HTTPRoute) and
// what it must earn.
type probe struct {
	name string
	want []string // substrings of the warnings, or of the denial; none: no warning at all
	obj  client.Object
	// denied: the create must be refused, with every string of want
	// in the error.
	denied bool
	// wantAny: the warning also matches one of these (the wordings
	// one finding has, taken from its package's constants).
	wantAny []*regexp.Regexp
}

// probes are dry-run creates that each only one kind of the cluster view
// can warn about, each expected to get a warning with the given text: they
// show the checks see the cluster (a figure of a webhook that skips them
// would measure nothing). The control probe, shaped as the measured creates,
// must get no warning. In the owners shape a probe outside its owner's
// declaration must be denied, naming the hostname.
func (c *scaleCluster) probes(ctx context.Context, n int) ([]probeResult, error) {
	gwConflict := measuredListenerSet("probe-gateway")
	gwConflict.Spec.Listeners[0].Hostname = ptr.To(gwv1.Hostname(scaleGatewayHostname(0)))
	missing := measuredListenerSet("probe-secret")
	missing.Spec.Listeners[1].TLS.CertificateRefs[0].Name = "missing-tls"
	grant := measuredListenerSet("probe-grant")
	grant.Spec.Listeners[1].TLS.CertificateRefs[0].Namespace = ptr.To(gwv1.Namespace(scaleNS(5))) // its grant is for the next namespace only
	outsider := measuredListenerSet("probe-outsider")
	outsider.Namespace = scaleOutsider
	outsider.Spec.Listeners[1].TLS.CertificateRefs[0].Namespace = nil // its own shared-tls
	ps := []probe{
		{name: "control (as measured)", obj: measuredFor(*scaleShape)("probe-control")},
		{name: "Gateway's own listener", want: []string{"HostnameConflict", scaleNS(0) + "/" + scaleGateway}, obj: gwConflict},
		{name: "missing Secret", want: []string{"missing-tls", "not found"}, obj: missing},
		{name: "no ReferenceGrant", want: []string{"RefNotPermitted"}, obj: grant},
		{name: "namespace not selected", want: []string{"NotAllowed"}, obj: outsider},
	}
	if n > 0 {
		ls, _ := scaleListenerSet(*scaleShape, 0) // on the first Gateway
		rival := measuredListenerSet("probe-rival")
		rival.Spec.Listeners[0].Hostname = ls.Spec.Listeners[0].Hostname
		ps = append(ps, probe{name: "rival ListenerSet", want: []string{"HostnameConflict", ls.Namespace + "/" + ls.Name}, obj: rival})
		if ownedShape(*scaleShape) {
			h := string(*ls.Spec.Listeners[0].Hostname)
			ps = append(ps, probe{name: "another owner's hostname", obj: rival, want: []string{strconv.Quote(ls.Namespace)},
				wantAny: []*regexp.Regexp{claimPattern(validation.DetailHostnameHeld, h), claimPattern(validation.DetailHostnameClaimed, h)}})
		}
	}
	if *scaleShape == shapeOwners {
		undeclared := measuredFor(*scaleShape)("probe-undeclared")
		h := "probe." + validationtest.OwnerDomain(scaleMeasuredOwner+1)
		undeclared.Spec.Listeners[0].Hostname = ptr.To(gwv1.Hostname(h))
		ps = append(ps, probe{name: "undeclared hostname", obj: undeclared, denied: true,
			want: []string{fmt.Sprintf("hostname %q is not among", h), validation.DefaultAllowedHostnamesAnnotation}})
	}
	if *scaleShape == shapeRouteCreates {
		ps = append(ps, routeProbes(n)...)
	}
	var out []probeResult
	for _, p := range ps {
		w0 := c.warnings.count()
		err := c.cl.Create(ctx, p.obj, client.DryRunAll)
		if p.denied {
			r := probeResult{Name: p.name, Want: "denied with " + strings.Join(p.want, ", ")}
			if err != nil {
				r.Warnings = []string{err.Error()}
			}
			r.OK = err != nil && probeOK(r.Warnings, p.want)
			out = append(out, r)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("probe %q: %w", p.name, err)
		}
		got := c.warnings.since(w0)
		want := "no warning"
		if len(p.want) > 0 {
			want = "a warning with " + strings.Join(p.want, ", ")
		}
		for _, re := range p.wantAny {
			want += "; one of /" + re.String() + "/"
		}
		out = append(out, probeResult{Name: p.name, Want: want, Warnings: got, OK: probeOK(got, p.want, p.wantAny...)})
	}
	return out, nil
}

// probeOK: no warning when want and wantAny are empty; otherwise one
// warning that contains every string of want and matches one of wantAny
// (when there are any).
func probeOK(got, want []string, wantAny ...*regexp.Regexp) bool {
	if len(want) == 0 && len(wantAny) == 0 {
		return len(got) == 0
	}
	return slices.ContainsFunc(got, func(w string) bool {
		for _, s := range want {
			if !strings.Contains(w, s) {
				return false
			}
		}
		return len(wantAny) == 0 || slices.ContainsFunc(wantAny, func(re *regexp.Regexp) bool { return re.MatchString(w) })
	})
}

// claimPattern matches a first-claim warning written with format (one of
// merged's DetailHostname constants, whose first verb is the claimed
// hostname): that hostname quoted, and anything in place of each other
// verb. The probe takes the finding's wording from the code, so it holds
// whichever of the constants the webhook picks for the hostname.
func claimPattern(format, hostname string) *regexp.Regexp {
	verb := regexp.MustCompile(`%[qsd]`)
	parts := verb.Split(format, -1)
	var b strings.Builder
	for i, part := range parts {
		if i == 1 {
			b.WriteString(regexp.QuoteMeta(strconv.Quote(hostname)))
		} else if i > 1 {
			b.WriteString(".+?")
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	return regexp.MustCompile(b.String())
}

// scaleFile names a result file: base+ext for the gateways shape (as
// before shapes), base-<shape>+ext for another.
func scaleFile(shape, base, ext string) string {
	if shape == shapeGateways {
		return base + ext
	}
	return base + "-" + shape + ext
}

func scaleHostname(i int) string        { return fmt.Sprintf("ls-%05d.example.com", i) }
func scaleGatewayHostname(i int) string { return fmt.Sprintf("gateway-%02d.example.com", i) }

// scaleClasses GatewayClasses: the first, scaleGatewayClass, Airlock's
// (every Gateway of the figure is of it), the others other
// implementations', so that the scope decision reads one class among many.
const (
	scaleClasses      = 100
	scaleGatewayClass = "airlock"
)

func scaleClass(i int) *gwv1.GatewayClass {
	if i == 0 {
		return &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: scaleGatewayClass},
			Spec: gwv1.GatewayClassSpec{ControllerName: validation.AirlockControllerName}}
	}
	return &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("other-%02d", i)},
		Spec: gwv1.GatewayClassSpec{ControllerName: gwv1.GatewayController(fmt.Sprintf("example.com/other-%02d", i))}}
}

func scaleGatewayObject(i int, name string) *gwv1.Gateway {
	hostname := scaleGatewayHostname(i)
	if name != scaleGateway {
		hostname = name + "-" + hostname
	}
	return &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: scaleNS(i), Name: name},
		Spec: gwv1.GatewaySpec{
			GatewayClassName: scaleGatewayClass,
			Listeners: []gwv1.Listener{{
				Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To(gwv1.Hostname(hostname)),
			}},
			AllowedListeners: &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{
				From:     ptr.To(gwv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{scaleTeamLabel: "true"}},
			}},
		},
	}
}

// scaleGrant lets ListenerSets of the next namespace reference Secrets of
// namespace i.
func scaleGrant(i int) *gwv1.ReferenceGrant {
	return &gwv1.ReferenceGrant{
		ObjectMeta: metav1.ObjectMeta{Namespace: scaleNS(i), Name: "listenersets-from-" + scaleNS(i+1)},
		Spec: gwv1.ReferenceGrantSpec{
			From: []gwv1.ReferenceGrantFrom{{Group: gwv1.GroupName, Kind: "ListenerSet", Namespace: gwv1.Namespace(scaleNS(i + 1))}},
			To:   []gwv1.ReferenceGrantTo{{Group: "", Kind: "Secret"}},
		},
	}
}

func scaleSecret(namespace, name string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace, Name: name,
			Labels: map[string]string{"controller.cert-manager.io/fao": "true"},
			Annotations: map[string]string{
				"cert-manager.io/certificate-name": name, "cert-manager.io/issuer-name": "letsencrypt", "cert-manager.io/issuer-kind": "ClusterIssuer",
			},
		},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte("not a certificate: the webhook reads metadata only"), corev1.TLSPrivateKeyKey: []byte("not a key")},
	}
}

// scaleListenerSet is ListenerSet i of the populated cluster and its Secret:
// on the Gateway of namespace i mod 100, in namespace (i mod 100 + i/100)
// mod 100 (at 10 000 every Gateway has one ListenerSet from every
// namespace), HTTP and HTTPS on its own hostname, as `kubectl apply` creates
// it (with the last-applied annotation).
//
// In the one-gateway shape every ListenerSet is on the first Gateway, in
// namespace i mod 100; in the owners shape on the first Gateway too, where
// validationtest.OwnedSetOf puts it: in its owner's namespace, with a
// hostname under its owner's domain, or its owner's wildcard on other
// ports.
func scaleListenerSet(shape string, i int) (*gwv1.ListenerSet, *corev1.Secret) {
	g := i % scaleNamespaces
	ns := scaleNS(g + i/scaleNamespaces)
	hostname, http, https := scaleHostname(i), gwv1.PortNumber(80), gwv1.PortNumber(443)
	switch shape {
	case shapeOneGateway:
		g, ns = 0, scaleNS(i)
	case shapeOwners, shapeRouteCreates:
		o, h, wildcard := validationtest.OwnedSetOf(i)
		g, ns, hostname = 0, validationtest.OwnerNamespace(o), h
		if wildcard {
			http, https = validationtest.OwnerWildcardHTTPPort, validationtest.OwnerWildcardHTTPSPort
		}
	}
	name := fmt.Sprintf("ls-%05d", i)
	ls := listenerSetOnPorts(ns, name, scaleNS(g), scaleGateway, hostname, http, https, nil, name+"-tls")
	if shape == shapeRouteCreates && i < validationtest.Owners {
		// each owner's first set: a listener without a hostname too, on
		// a port of its owner's (claimRoute)
		ls.Spec.Listeners = append(ls.Spec.Listeners, openListener(routeOpenPorts+i))
		setLastApplied(ls)
	}
	return ls, scaleSecret(ns, name+"-tls")
}

// scaleOwnerNamespace is owner o's namespace in the owners shape: admitted
// by the Gateways' selector, declaring its domain.
func scaleOwnerNamespace(o int) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: validationtest.OwnerNamespace(o),
		Labels:      map[string]string{scaleTeamLabel: "true"},
		Annotations: map[string]string{validation.DefaultAllowedHostnamesAnnotation: validationtest.OwnerDeclaration(o)}}}
}

// scaleMeasuredOwner is the owner whose ListenerSets the owners shape's
// measured creates are: its namespace has a Secret scaleSharedSecret.
const scaleMeasuredOwner = 1

// measuredFor is the shape's measured create: measuredListenerSet, or in
// the owners shape validationtest.NewOwnedSet's, owner 1's set under its
// domain, with its certificate in its own namespace. No check warns about
// it.
func measuredFor(shape string) func(string) *gwv1.ListenerSet {
	if shape != shapeOwners {
		return measuredListenerSet
	}
	return func(name string) *gwv1.ListenerSet {
		own := validationtest.NewOwnedSet(name)
		return listenerSetObject(own.Namespace, name, scaleNS(0), scaleGateway, string(*own.Spec.Listeners[0].Hostname), nil, scaleSharedSecret)
	}
}

// aloneFor is measuredFor's create on the Gateway that has no ListenerSets.
func aloneFor(shape string) func(string) *gwv1.ListenerSet {
	measured := measuredFor(shape)
	return func(name string) *gwv1.ListenerSet {
		ls := measured(name)
		ls.Spec.ParentRef.Name = scaleAloneGateway
		return ls
	}
}

// measuredListenerSet is what the figure creates and deletes: in the second
// namespace, on the first Gateway (which has size/100 other ListenerSets),
// with its certificate in the first namespace, which that namespace's
// ReferenceGrant permits. No check warns about it.
func measuredListenerSet(name string) *gwv1.ListenerSet {
	return listenerSetObject(scaleNS(1), name, scaleNS(0), scaleGateway, name+".measured.example.com", ptr.To(gwv1.Namespace(scaleNS(0))), scaleSharedSecret)
}

func listenerSetObject(namespace, name, gatewayNamespace, gatewayName, hostname string, secretNamespace *gwv1.Namespace, secret string) *gwv1.ListenerSet {
	return listenerSetOnPorts(namespace, name, gatewayNamespace, gatewayName, hostname, 80, 443, secretNamespace, secret)
}

// listenerSetOnPorts is listenerSetObject with HTTP and HTTPS on the given
// ports.
func listenerSetOnPorts(namespace, name, gatewayNamespace, gatewayName, hostname string, http, https gwv1.PortNumber, secretNamespace *gwv1.Namespace, secret string) *gwv1.ListenerSet {
	ls := &gwv1.ListenerSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: gwv1.GroupVersion.String(), Kind: "ListenerSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app.kubernetes.io/part-of": "scale"}},
		Spec: gwv1.ListenerSetSpec{
			ParentRef: gwv1.ParentGatewayReference{Name: gwv1.ObjectName(gatewayName), Namespace: ptr.To(gwv1.Namespace(gatewayNamespace))},
			Listeners: []gwv1.ListenerEntry{
				{Name: "http", Port: http, Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To(gwv1.Hostname(hostname))},
				{
					Name: "https", Port: https, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To(gwv1.Hostname(hostname)),
					TLS: &gwv1.ListenerTLSConfig{CertificateRefs: []gwv1.SecretObjectReference{{Name: gwv1.ObjectName(secret), Namespace: secretNamespace}}},
				},
			},
		},
	}
	setLastApplied(ls)
	return ls
}

// setLastApplied sets the annotation `kubectl apply` writes, from ls.
func setLastApplied(ls *gwv1.ListenerSet) {
	applied, err := json.Marshal(map[string]any{
		"apiVersion": ls.APIVersion, "kind": ls.Kind,
		"metadata": map[string]any{"name": ls.Name, "namespace": ls.Namespace, "labels": ls.Labels},
		"spec":     ls.Spec,
	})
	if err != nil {
		panic(err)
	}
	ls.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(applied) + "\n"}
}

// scaleStatus is the status a controller writes for an accepted, programmed
// ListenerSet: two conditions, and four per listener.
func scaleStatus(ls *gwv1.ListenerSet) gwv1.ListenerSetStatus {
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	cond := func(t, reason string, status metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: t, Status: status, Reason: reason, Message: "", ObservedGeneration: ls.Generation, LastTransitionTime: now}
	}
	st := gwv1.ListenerSetStatus{Conditions: []metav1.Condition{
		cond("Accepted", "Accepted", metav1.ConditionTrue), cond("Programmed", "Programmed", metav1.ConditionTrue),
	}}
	for _, l := range ls.Spec.Listeners {
		st.Listeners = append(st.Listeners, gwv1.ListenerEntryStatus{
			Name:           l.Name,
			SupportedKinds: []gwv1.RouteGroupKind{{Group: ptr.To(gwv1.Group(gwv1.GroupName)), Kind: "HTTPRoute"}},
			AttachedRoutes: 1,
			Conditions: []metav1.Condition{
				cond("Accepted", "Accepted", metav1.ConditionTrue), cond("Programmed", "Programmed", metav1.ConditionTrue),
				cond("ResolvedRefs", "ResolvedRefs", metav1.ConditionTrue), cond("Conflicted", "NoConflicts", metav1.ConditionFalse),
			},
		})
	}
	return st
}

// cpuProfile writes the CPU profile of the server serving profiles at addr
// over d to path.
func cpuProfile(ctx context.Context, addr string, d time.Duration, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, max(int(d.Seconds()), 1)), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("cpu profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	say("scale: CPU profile in %s", path)
	return f.Close()
}

// populateRoutes creates HTTPRoutes until there are total, spread over the
// n populated sets: route j names set j mod n by sectionName http, with
// that set's hostname, in the set's namespace, so that each attaches; in
// the route-creates shape route j is claimRoute(j).
func (c *scaleCluster) populateRoutes(ctx context.Context, n, total int) (float64, error) {
	if n == 0 || total <= c.routes {
		return 0, nil
	}
	t0 := time.Now()
	from := c.routes
	err := parallel(ctx, total-from, *scaleWorkers, func(ctx context.Context, k int) error {
		j := from + k
		r := claimRoute(j)
		if *scaleShape != shapeRouteCreates {
			ls, _ := scaleListenerSet(*scaleShape, j%n)
			r = routeTo(ls.Namespace, fmt.Sprintf("route-%05d", j), ls.Name, "http", string(*ls.Spec.Listeners[0].Hostname))
		}
		if err := c.cl.Create(ctx, r); err != nil {
			return fmt.Errorf("httproute %s/%s: %w", r.Namespace, r.Name, err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	c.routes = total
	d := time.Since(t0)
	say("scale: created %d HTTPRoutes attached to the %d ListenerSets in %.1fs", total-from, n, d.Seconds())
	return d.Seconds(), nil
}

// timedUpdates times -scale-creates sequential updates of the first
// populated set, each changing a label: an update the routes' warnings read
// nothing for (no listener changes), whose cost must not grow with them.
func (c *scaleCluster) timedUpdates(ctx context.Context, srv *server) ([]time.Duration, usage, error) {
	first, _ := scaleListenerSet(*scaleShape, 0)
	key := client.ObjectKeyFromObject(first)
	u0, err := readUsage(srv)
	if err != nil {
		return nil, usage{}, err
	}
	samples := make([]time.Duration, 0, *scaleCreates)
	for k := range *scaleCreates {
		patch := client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"metadata":{"labels":{"scale-update":"u%d"}}}`, k)))
		ls := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
		t := time.Now()
		if err := c.cl.Patch(ctx, ls, patch); err != nil {
			return nil, usage{}, fmt.Errorf("update %s: %w", key, err)
		}
		samples = append(samples, time.Since(t))
	}
	u1, err := readUsage(srv)
	if err != nil {
		return nil, usage{}, err
	}
	use := u1.since(u0)
	slices.Sort(samples)
	return samples, use, nil
}
