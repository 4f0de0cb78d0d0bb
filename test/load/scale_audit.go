package main

// The audit figure (make bench-audit, go run ./test/load -audit-scale,
// `kubectl listenerset audit` of a local kube-apiserver that
// stores N ListenerSets in the scale figure's shapes (-scale-shape: spread
// over 100 Gateways, or all on one), timed as a user runs it: wall time,
// CPU and peak RSS of the process, the paginated lists from kube-apiserver
// included.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/live"
	"github.com/airlock/listenerset-webhook/test/localcluster"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

var (
	auditScale = flag.Bool("audit-scale", false, "run the audit figure only (make bench-audit): `kubectl listenerset audit` of a cluster with -audit-sizes ListenerSets in -scale-shape's shape")
	auditSizes = flag.String("audit-sizes", "1000,10000", "audit figure: numbers of ListenerSets stored, comma-separated (ascending; the cluster only grows)")
	auditRuns  = flag.Int("audit-runs", 3, "audit figure: runs of the audit per size")
	// auditFormat is the output the figure runs: JSON is the largest.
	auditFormat = flag.String("audit-format", "json", "audit figure: the audit's -o")
)

// The audit's targets at 10 000 ListenerSets.
const (
	auditTargetSeconds = 10
	auditTargetMiB     = 256
)

type auditSizeResult struct {
	ListenerSets    int             `json:"listenerSets"`
	PopulateSeconds float64         `json:"populateSeconds"`
	Runs            []offlineResult `json:"runs"`
	// ListSeconds are, before each run, the wall times of the paginated
	// list of every ListenerSet alone (the tool's own client, 500 a page,
	// as the audit lists them): kube-apiserver's share of a run.
	ListSeconds []float64 `json:"listSeconds"`
}

type auditReport struct {
	Machine    machine           `json:"machine"`
	Command    string            `json:"command"`
	Shape      string            `json:"shape"`
	Format     string            `json:"format"`
	Sizes      []auditSizeResult `json:"sizes"`
	LoadAvgEnd string            `json:"loadAvgEnd"`
	Missed     []string          `json:"missed"`
}

func runAuditScale(ctx context.Context, o options) (int, error) {
	sizes, err := parseSizes(*auditSizes)
	if err != nil {
		return 0, err
	}
	if *auditRuns < 1 || *scaleWorkers < 1 {
		return 0, fmt.Errorf("-audit-runs and -scale-workers must be positive")
	}
	if err := checkShape(*scaleShape); err != nil {
		return 0, err
	}
	root, abs, err := repoPaths()
	if err != nil {
		return 0, err
	}
	o.pluginBin, o.outDir = abs(o.pluginBin), abs(o.outDir)
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return 0, err
	}
	if o.build {
		say("audit-scale: building %s", testproc.PluginPackage)
		if err := testproc.Build(ctx, o.pluginBin, testproc.PluginPackage, "-trimpath"); err != nil {
			return 0, err
		}
	}
	rep := auditReport{Machine: describeMachine(root), Command: strings.Join(os.Args, " "), Shape: *scaleShape, Format: *auditFormat}
	say("audit-scale: commit %s, load average %s; shape %s, sizes %v", rep.Machine.Commit, rep.Machine.LoadAvgStart, rep.Shape, sizes)
	lc, err := localcluster.Start(ctx, localcluster.Options{Root: root, Progress: os.Stderr})
	if err != nil {
		return 0, err
	}
	defer lc.Stop()
	sc, err := newScaleCluster(ctx, lc, o.outDir)
	if err != nil {
		return 0, err
	}
	if err := sc.base(ctx); err != nil {
		return 0, fmt.Errorf("creating namespaces, Gateways and ReferenceGrants: %w", err)
	}
	fmt.Printf("audit of ListenerSets in the %s shape (-o %s), %d runs per size: the process's wall time, CPU and peak RSS, lists included\n",
		rep.Shape, rep.Format, *auditRuns)
	fmt.Printf("%-12s %8s %8s %8s %10s %12s %5s\n", "ListenerSets", "list s", "wall s", "CPU s", "maxRSS MiB", "output B", "exit")
	for _, n := range sizes {
		d, err := sc.populate(ctx, n)
		if err != nil {
			return 0, fmt.Errorf("%d ListenerSets: %w", n, err)
		}
		r := auditSizeResult{ListenerSets: n, PopulateSeconds: d.Seconds()}
		for range *auditRuns {
			list, err := sc.timeList(ctx)
			if err != nil {
				return 0, err
			}
			r.ListSeconds = append(r.ListSeconds, list.Seconds())
			run, err := timeRun(ctx, o.pluginBin, "audit", "--kubeconfig", lc.KubeconfigPath, "-o", rep.Format)
			if err != nil {
				return 0, err
			}
			run.ListenerSets = n
			if run.ExitCode == 2 {
				return 0, fmt.Errorf("audit of %d ListenerSets: exit 2: %s", n, run.stderr)
			}
			r.Runs = append(r.Runs, run)
			fmt.Printf("%-12d %8.2f %8.2f %8.2f %10.1f %12d %5d\n", n, list.Seconds(), run.WallSeconds, run.CPUSeconds, run.MaxRSSMiB, run.OutputBytes, run.ExitCode)
			if n >= 10000 && (run.WallSeconds > auditTargetSeconds || run.MaxRSSMiB > auditTargetMiB) {
				rep.Missed = append(rep.Missed, fmt.Sprintf("%d ListenerSets: %.2f s, %.1f MiB (targets <= %d s, <= %d MiB)",
					n, run.WallSeconds, run.MaxRSSMiB, auditTargetSeconds, auditTargetMiB))
			}
		}
		rep.Sizes = append(rep.Sizes, r)
	}
	rep.LoadAvgEnd = loadAvg()
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return 0, err
	}
	out := filepath.Join(o.outDir, scaleFile(rep.Shape, "audit", ".json"))
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return 0, err
	}
	fmt.Printf("load average: %s at start, %s at end; commit %s; written: %s\n", rep.Machine.LoadAvgStart, rep.LoadAvgEnd, rep.Machine.Commit, out)
	for _, m := range rep.Missed {
		fmt.Println("target missed:", m)
	}
	if len(rep.Missed) == 0 {
		fmt.Printf("targets (<= %d s, <= %d MiB at 10 000): met where measured\n", auditTargetSeconds, auditTargetMiB)
	}
	return 0, nil
}

// timeList times a paginated list of every ListenerSet, as the audit
// lists them (live.DefaultPageSize a page), decoded and dropped.
func (c *scaleCluster) timeList(ctx context.Context) (time.Duration, error) {
	t0 := time.Now()
	cont := ""
	for {
		var l gwv1.ListenerSetList
		if err := c.cl.List(ctx, &l, client.Limit(live.DefaultPageSize), client.Continue(cont)); err != nil {
			return 0, fmt.Errorf("listing ListenerSets: %w", err)
		}
		if cont = l.GetContinue(); cont == "" {
			return time.Since(t0), nil
		}
	}
}
