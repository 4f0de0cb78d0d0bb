// Command load measures the ListenerSet webhook as a server and through a
// real kube-apiserver, each time against a floor (docs/performance.md):
//
//	go run ./test/load [flags]        (make bench runs it with the benchmarks)
//
// 1. Load: it starts the real server binary (bin/listenerset-webhook serve)
// and the floor (bin/listenerset-webhook-floor, from ./test/load/floor: a
// plain controller-runtime webhook server as a kubebuilder scaffold builds
// it, webhook.NewServer with its defaults and HTTP/2 off, with a handler that
// decodes the ListenerSet with controller-runtime's decoder and allows; none
// of our server code), one fresh process per run, and drives each over
// HTTPS with keep-alive at fixed concurrency for a fixed time with a mix of
// valid and invalid creates and updates to both endpoints. Runs alternate
// between the two servers. It
// prints requests/s, p50/p90/p99/max latency, errors, the server's idle and
// peak RSS (/proc/<pid>/status VmRSS and VmHWM) and the ratios ours/floor.
//
// 2. API server: with the local control plane (test/localcluster) it times
// sequential creates in seven states, alternating in rounds: no webhooks, the
// floor as both webhooks, ours, ours with the mutating webhook's
// matchConditions, the floor as the validating webhook only, the generated
// ValidatingAdmissionPolicy alone, and the policy with ours failing open with
// the cluster-aware checks on (policy.go). Then what the policy's CEL costs
// inside kube-apiserver for the 64-listener object, from kube-apiserver's
// admission metrics.
//
// Burst (-burst N, burst.go): N of the costliest worst objects at once,
// each with ?timeout=1s, and a usual request meanwhile: every worst one
// answered before its timeout (judged, or refused in time with a 429), the
// usual one answered. Only that figure runs then.
//
// Fast path (-fast-path, fastpath.go): real creates of the 2- and
// 64-listener sets with no admission, the generated policy, and the policy
// with its fast path off, rotating over -api-rounds rounds. Only that
// figure runs then.
//
// 3. Scale (-scale, make bench-scale; scale.go): for each of -sizes
// ListenerSets (default 0, 1 000, 10 000) spread over 100 Gateways in 100
// namespaces, with their Secrets and ReferenceGrants, it starts ours with
// --cluster-checks --watch-secrets against the local control plane and
// prints the latency of creates through kube-apiserver, the webhook's CPU
// per request, its RSS and its time from start to ready with every cache
// synced, against its targets; results in -out/scale.json. Only the
// scale figure runs then.
//
// Cluster load (-cluster-load, cluster.go): drives an existing cluster
// through its kube-apiserver (-kubeconfig, -namespace), starting nothing:
// -workers send request pairs (test/load/clusterload: server-side dry runs
// of a valid ListenerSet, to be admitted, and an invalid one, to be denied
// by the webhook) until -duration or SIGINT/SIGTERM, for a test or an
// operator to see that no request fails through an upgrade; it writes
// -out/cluster-load.json and exits 1 when a pair failed. Only that runs then.
//
// Results go to -out as results.json and latency.svg (latency percentiles
// against concurrency). The exit code is 1 when a request failed or was
// answered wrongly; a missed performance target is reported, not fatal
// (timings on a shared 2-core machine are noisy).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/airlock/listenerset-webhook/test/load/clusterload"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

type report struct {
	Machine     machine      `json:"machine"`
	Command     string       `json:"command"`
	Mix         []mixEntry   `json:"mix,omitempty"`
	Load        []loadResult `json:"load,omitempty"`
	Ratios      []ratio      `json:"ratios,omitempty"`
	APIServer   *apiResult   `json:"apiServer,omitempty"`
	APIRatios   []ratio      `json:"apiServerRatios,omitempty"`
	LoadAvgEnd  string       `json:"loadAverageAtEnd"`
	FinishedAt  string       `json:"finishedAt"`
	TargetsMiss []string     `json:"targetsMissed"`
}

type machine struct {
	CPU          string `json:"cpu"`
	Cores        int    `json:"cores"`
	MemoryTotal  string `json:"memoryTotal"`
	Kernel       string `json:"kernel"`
	Go           string `json:"go"`
	Commit       string `json:"commit"`
	LoadAvgStart string `json:"loadAverageAtStart"`
	StartedAt    string `json:"startedAt"`
}

type mixEntry struct {
	Request string  `json:"request"`
	Share   float64 `json:"share"`
	Allowed bool    `json:"allowedByOurs"`
}

type ratio struct {
	What   string  `json:"what"`
	Value  float64 `json:"value"`
	Target string  `json:"target"`
	Met    bool    `json:"met"`
}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[load %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func main() {
	var (
		oursBin      = flag.String("ours", "bin/listenerset-webhook", "the webhook binary (relative to the repository root)")
		pluginBin    = flag.String("plugin", "bin/kubectl-listenerset", "the kubectl plugin, whose validate -offline-scale and audit -audit-scale time (relative to the repository root)")
		floorBin     = flag.String("floor", "bin/listenerset-webhook-floor", "the floor binary (a plain controller-runtime webhook server), built from ./test/load/floor/server")
		build        = flag.Bool("build", true, "build both binaries first (go build -trimpath)")
		concurrency  = flag.String("concurrency", "1,8,32", "client counts, comma-separated")
		duration     = flag.Duration("duration", 3*time.Second, "measured time of each run; with -cluster-load, how long to send (when not given: until SIGINT or SIGTERM)")
		warmup       = flag.Duration("warmup", time.Second, "unmeasured time at the start of each run")
		rounds       = flag.Int("rounds", 3, "runs of each server at each concurrency (alternating ours and floor)")
		creates      = flag.Int("creates", 200, "API server figure: creates per state (0 skips it)")
		apiRounds    = flag.Int("api-rounds", 5, "API server figure: rounds the creates are spread over")
		skipLoad     = flag.Bool("skip-load", false, "only the API server figure")
		outDir       = flag.String("out", ".run/load", "where results.json, latency.svg and the servers' logs go, or -cluster-load's "+clusterload.ResultFile+" (relative to the repository root)")
		idleSettle   = flag.Duration("idle-settle", time.Second, "wait after a server is ready before reading its idle RSS")
		printMixOnly = flag.Bool("print-mix", false, "print the request mix and exit")
	)
	flag.Parse()
	logf.SetLogger(logr.Discard()) // envtest's and controller-runtime's logs are not ours to print
	if *printMixOnly {
		for _, m := range mixEntries() {
			fmt.Printf("%5.1f%%  %-60s allowed=%v\n", 100*m.Share, m.Request, m.Allowed)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *clusterMode {
		code, err := runClusterLoad(ctx, clusterOptionsFromFlags(*outDir, *duration))
		if err != nil {
			fmt.Fprintln(os.Stderr, "load -cluster-load:", err)
			os.Exit(2)
		}
		os.Exit(code)
	}
	if *offlineScale || *offlineGenerate != "" {
		code, err := runOfflineScale(ctx, options{pluginBin: *pluginBin, build: *build, outDir: *outDir})
		if err != nil {
			fmt.Fprintln(os.Stderr, "load -offline-scale:", err)
			os.Exit(2)
		}
		os.Exit(code)
	}
	if *auditScale {
		code, err := runAuditScale(ctx, options{pluginBin: *pluginBin, build: *build, outDir: *outDir})
		if err != nil {
			fmt.Fprintln(os.Stderr, "load -audit-scale:", err)
			os.Exit(2)
		}
		os.Exit(code)
	}
	if *burstN > 0 {
		code, err := runBurst(ctx, options{oursBin: *oursBin, build: *build, outDir: *outDir})
		if err != nil {
			fmt.Fprintln(os.Stderr, "load -burst:", err)
			os.Exit(2)
		}
		os.Exit(code)
	}
	if *fastPathMode {
		if err := runFastPath(ctx, *creates, *fastPathSixFour, *apiRounds); err != nil {
			fmt.Fprintln(os.Stderr, "load -fast-path:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	if *scaleMode {
		code, err := runScale(ctx, options{oursBin: *oursBin, build: *build, outDir: *outDir})
		if err != nil {
			fmt.Fprintln(os.Stderr, "load -scale:", err)
			os.Exit(2)
		}
		os.Exit(code)
	}
	code, err := run(ctx, options{
		oursBin: *oursBin, floorBin: *floorBin, build: *build, concurrency: *concurrency, duration: *duration,
		warmup: *warmup, rounds: *rounds, creates: *creates, apiRounds: *apiRounds, skipLoad: *skipLoad,
		outDir: *outDir, idleSettle: *idleSettle,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

type options struct {
	oursBin, floorBin, pluginBin, concurrency, outDir string
	build, skipLoad                                   bool
	duration, warmup, idleSettle                      time.Duration
	rounds, creates, apiRounds                        int
}

func run(ctx context.Context, o options) (int, error) {
	root, abs, err := repoPaths()
	if err != nil {
		return 0, err
	}
	o.oursBin, o.floorBin, o.outDir = abs(o.oursBin), abs(o.floorBin), abs(o.outDir)
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return 0, err
	}
	var levels []int
	for _, f := range strings.Split(o.concurrency, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return 0, fmt.Errorf("-concurrency %q: want positive integers", o.concurrency)
		}
		levels = append(levels, n)
	}
	if o.build {
		for bin, pkg := range map[string]string{o.oursBin: testproc.WebhookPackage, o.floorBin: localcluster.ModulePath + "/test/load/floor/server"} {
			say("building %s", pkg)
			if err := testproc.Build(ctx, bin, pkg, "-trimpath"); err != nil {
				return 0, err
			}
		}
	}

	rep := report{Machine: describeMachine(root), Command: strings.Join(os.Args, " ")}
	failed := false
	if !o.skipLoad {
		rep.Mix = mixEntries()
		results, err := loadFigure(ctx, o, levels)
		if err != nil {
			return 0, err
		}
		rep.Load = results
		rep.Ratios = loadRatios(results, levels)
		for _, r := range results {
			failed = failed || r.Errors > 0
		}
		printLoad(results, rep.Ratios, levels)
		svg := latencySVG(results, levels, "ListenerSet webhook vs floor: latency by concurrency")
		if err := os.WriteFile(filepath.Join(o.outDir, "latency.svg"), []byte(svg), 0o644); err != nil {
			return 0, err
		}
	}
	if o.creates > 0 {
		api, err := apiserverFigure(ctx, root, o.oursBin, o.floorBin, o.outDir, o.creates, o.apiRounds)
		if err != nil {
			return 0, fmt.Errorf("API server figure: %w", err)
		}
		rep.APIServer = api
		rep.APIRatios = apiRatios(api)
		printAPI(api, rep.APIRatios)
	}
	rep.LoadAvgEnd = loadAvg()
	rep.FinishedAt = time.Now().UTC().Format(time.RFC3339)
	for _, r := range append(append([]ratio{}, rep.Ratios...), rep.APIRatios...) {
		if !r.Met {
			rep.TargetsMiss = append(rep.TargetsMiss, fmt.Sprintf("%s = %.3g (target %s)", r.What, r.Value, r.Target))
		}
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(o.outDir, "results.json"), append(b, '\n'), 0o644); err != nil {
		return 0, err
	}
	fmt.Printf("\nload average: %s at start, %s at end (2 cores: above 2, other work competed)\n", rep.Machine.LoadAvgStart, rep.LoadAvgEnd)
	if len(rep.TargetsMiss) == 0 {
		fmt.Println("targets: all met")
	} else {
		fmt.Printf("targets missed (%d): %s\n", len(rep.TargetsMiss), strings.Join(rep.TargetsMiss, "; "))
	}
	fmt.Printf("written: %s, %s\n", filepath.Join(o.outDir, "results.json"), filepath.Join(o.outDir, "latency.svg"))
	if failed {
		fmt.Println("FAIL: some requests failed or were answered wrongly (see firstError in results.json)")
		return 1, nil
	}
	return 0, nil
}

// loadFigure runs every server at every concurrency, rounds times,
// alternating which server goes first.
func loadFigure(ctx context.Context, o options, levels []int) ([]loadResult, error) {
	certDir := filepath.Join(o.outDir, "certs")
	cert, err := localcluster.NewServingCert(certDir, "127.0.0.1", "localhost")
	if err != nil {
		return nil, err
	}
	reqs := mix()
	type key struct {
		server string
		c      int
	}
	merged := map[key]*loadResult{}
	servers := []struct{ name, bin string }{{"floor", o.floorBin}, {"ours", o.oursBin}}
	for round := range o.rounds {
		for _, c := range levels {
			order := servers
			if round%2 == 1 {
				order = []struct{ name, bin string }{servers[1], servers[0]}
			}
			for _, s := range order {
				args := []string{}
				if s.name == "ours" {
					args = append([]string{"serve"}, testproc.ServeFlags()...)
				}
				srv, err := startServer(ctx, s.name, s.bin, args, cert.Dir, filepath.Join(o.outDir, fmt.Sprintf("%s-c%d-r%d.log", s.name, c, round)))
				if err != nil {
					return nil, err
				}
				time.Sleep(o.idleSettle)
				idle, _, err := srv.memory()
				if err != nil {
					srv.stop()
					return nil, err
				}
				cpu0, err := srv.cpu()
				if err != nil {
					srv.stop()
					return nil, err
				}
				res := drive(ctx, srv.baseURL(), cert.CAPEM, c, o.warmup, o.duration, reqs, s.name == "ours")
				cpu1, err := srv.cpu()
				if err != nil {
					srv.stop()
					return nil, err
				}
				res.serverCPU = cpu1 - cpu0
				res.finish()
				_, peak, err := srv.memory()
				srv.stop()
				if err != nil {
					return nil, err
				}
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				res.Server, res.IdleRSSMiB, res.PeakRSSMiB = s.name, mib(idle), mib(peak)
				say("round %d, %-5s c=%-2d: %7.0f req/s  p50 %.2fms  p99 %.2fms  errors %d  server CPU %.0fµs/req  peak RSS %.1f MiB",
					round+1, s.name, c, res.RPS, res.P50Ms, res.P99Ms, res.Errors, res.ServerCPUPerRequestUs, res.PeakRSSMiB)
				k := key{s.name, c}
				if merged[k] == nil {
					merged[k] = &res
				} else {
					merged[k].merge(res)
				}
			}
		}
	}
	var out []loadResult
	for _, c := range levels {
		for _, s := range servers {
			out = append(out, *merged[key{s.name, c}])
		}
	}
	return out, nil
}

func find(results []loadResult, server string, c int) loadResult {
	for _, r := range results {
		if r.Server == server && r.Concurrency == c {
			return r
		}
	}
	return loadResult{}
}

// loadRatios compares ours with the floor at each concurrency. The targets
// are server CPU per request (what a platform pays in cores; the steadiest
// figure on a shared machine) at 1 and 8 clients; throughput, p99 and RSS
// are printed for reference.
func loadRatios(results []loadResult, levels []int) []ratio {
	var out []ratio
	for _, c := range levels {
		ours, floor := find(results, "ours", c), find(results, "floor", c)
		cpu := ours.ServerCPUPerRequestUs / floor.ServerCPUPerRequestUs
		rps, p99, peak := ours.RPS/floor.RPS, ours.P99Ms/floor.P99Ms, ours.PeakRSSMiB/floor.PeakRSSMiB
		if c == 1 || c == 8 {
			out = append(out, ratio{fmt.Sprintf("c=%d server CPU per request ours/floor", c), cpu, "<= 2.00", cpu <= 2.0})
		} else {
			out = append(out, ratio{fmt.Sprintf("c=%d server CPU per request ours/floor (for reference)", c), cpu, "-", true})
		}
		out = append(out,
			ratio{fmt.Sprintf("c=%d throughput ours/floor (for reference)", c), rps, "-", true},
			ratio{fmt.Sprintf("c=%d p99 latency ours/floor (for reference)", c), p99, "-", true},
			ratio{fmt.Sprintf("c=%d peak RSS ours/floor (for reference)", c), peak, "-", true},
			ratio{fmt.Sprintf("c=%d idle RSS ours, MiB (for reference)", c), ours.IdleRSSMiB, "-", true},
		)
	}
	return out
}

func apiRatios(a *apiResult) []ratio {
	p50 := map[string]float64{}
	for _, s := range a.States {
		p50[s.Name] = s.P50Ms
	}
	oursFloor := p50["ours"] / p50["floor"]
	mcNone := p50["ours+matchConditions"] / p50["no webhooks"]
	policyNone := p50[statePolicyOnly] / p50["no webhooks"]
	out := []ratio{
		{"API server creates p50 ours/floor", oursFloor, "<= 1.05", oursFloor <= 1.05},
		{"API server creates p50 ours+matchConditions/no webhooks (for reference)", mcNone, "-", true},
		{"API server creates p50 floor/no webhooks (for reference)", p50["floor"] / p50["no webhooks"], "-", true},
		{"API server creates p50 ours/no webhooks (for reference)", p50["ours"] / p50["no webhooks"], "-", true},
		{"API server creates p50 ours+matchConditions/floor (for reference)", p50["ours+matchConditions"] / p50["floor"], "-", true},
		{"API server creates p50 ours+matchConditions/floor validating only", p50["ours+matchConditions"] / p50["floor, validating only"], "-", true},
		{"API server creates p50 floor validating only/no webhooks", p50["floor, validating only"] / p50["no webhooks"], "-", true},
		{"API server creates p50 policy only/no webhooks", policyNone, "<= 1.10", policyNone <= 1.10},
		{"API server creates p50 policy + webhook (Ignore, cluster checks)/no webhooks", p50[statePolicyAndWebhook] / p50["no webhooks"], "-", true},
		{"API server creates p50 policy only/ours+matchConditions", p50[statePolicyOnly] / p50["ours+matchConditions"], "-", true},
	}
	return append(out, a.PolicyCost.ratios()...)
}

func printLoad(results []loadResult, ratios []ratio, levels []int) {
	fmt.Printf("\nLoad: each line %s of measured traffic per server and concurrency\n", "the sum of all rounds")
	fmt.Printf("%-4s %-6s %9s %8s %8s %8s %8s %7s %11s %9s %9s\n", "c", "server", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "CPU µs/req", "idle MiB", "peak MiB")
	for _, r := range results {
		fmt.Printf("%-4d %-6s %9.0f %8.2f %8.2f %8.2f %8.2f %7d %11.0f %9.1f %9.1f\n",
			r.Concurrency, r.Server, r.RPS, r.P50Ms, r.P90Ms, r.P99Ms, r.MaxMs, r.Errors, r.ServerCPUPerRequestUs, r.IdleRSSMiB, r.PeakRSSMiB)
	}
	fmt.Println()
	for _, r := range ratios {
		printRatio(r)
	}
}

func printAPI(a *apiResult, ratios []ratio) {
	fmt.Printf("\nAPI server: %d sequential creates per state over %d alternating rounds (control plane up in %.1fs)\n",
		a.CreatesPerState, a.Rounds, a.StartSeconds)
	fmt.Printf("%-44s %8s %8s %8s %8s\n", "state", "creates", "mean ms", "p50 ms", "p99 ms")
	for _, s := range a.States {
		fmt.Printf("%-44s %8d %8.2f %8.2f %8.2f\n", s.Name, s.Creates, s.MeanMs, s.P50Ms, s.P99Ms)
	}
	fmt.Printf("calls that reached our mutating webhook while it had matchConditions: %.0f\n", a.OursMutateCallsWithMatchConditions)
	a.PolicyCost.print()
	fmt.Println()
	for _, r := range ratios {
		printRatio(r)
	}
}

func printRatio(r ratio) {
	mark := "met"
	switch {
	case r.Target == "-":
		mark = ""
	case !r.Met:
		mark = "MISSED"
	}
	fmt.Printf("%-78s %7.3f  %-8s %s\n", r.What, r.Value, r.Target, mark)
}

func mixEntries() []mixEntry {
	reqs := mix()
	total := 0
	for _, r := range reqs {
		total += r.weight
	}
	var out []mixEntry
	for _, r := range reqs {
		out = append(out, mixEntry{Request: r.name, Share: float64(r.weight) / float64(total), Allowed: r.allowed})
	}
	return out
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func describeMachine(root string) machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version(), LoadAvgStart: loadAvg(), StartedAt: time.Now().UTC().Format(time.RFC3339)}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if line, _, ok := strings.Cut(string(b), "\n"); ok {
			m.MemoryTotal = strings.Join(strings.Fields(strings.TrimPrefix(line, "MemTotal:")), " ")
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		m.Commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
			m.Commit += " (with uncommitted changes)"
		}
	}
	return m
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// repoPaths returns the repository root and a function that makes a path
// given on the command line (relative to that root) absolute.
func repoPaths() (string, func(string) string, error) {
	root, err := localcluster.RepoRoot()
	if err != nil {
		return "", nil, err
	}
	return root, func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}, nil
}
