package live

import (
	"context"

	"k8s.io/client-go/rest"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/offline/report"
)

// Validate is validate -f PATH with a kubeconfig: the files judged with the
// live cluster cfg reaches as their context (judge.Options.Cluster: the
// files' objects replace the cluster's of the same name), every finding
// marked introduced, unchanged or fixed against the cluster's own verdict
// on its stored sets (judge.Compare), and the cluster's other sets whose
// findings the files change added. The exit code is 1 only for an
// introduced error, unless opts.AnyError; 2 when an input cannot be read or
// the cluster cannot be listed.
func Validate(ctx context.Context, cfg *rest.Config, paths []string, opts offline.Options) int {
	if opts.Format == "" {
		opts.Format = report.Text
	}
	in := read.Paths(paths, opts.Stdin)
	snap, err := Read(ctx, cfg, Options{Judge: opts.Judge})
	if err != nil {
		// Judged offline, the cluster's error in the report: exit 2.
		v := judge.Run(in, opts.Judge)
		v.Notes = append([]judge.Note{{InputError: &read.InputError{Message: err.Error()}}}, v.Notes...)
		return offline.Report(v, opts)
	}
	jo := opts.Judge
	jo.Cluster = snap.Objects
	jo.ReplacementsAsStored = true
	v := judge.Run(in, jo)
	// The stored sets judged as the audit judges them: by the same rules,
	// added names and scope as the files.
	storedOpts := judge.Options{Strict: jo.Strict, AddedNames: jo.AddedNames, Scope: jo.Scope, Tenancy: jo.Tenancy}
	stored := judge.Stored(snap.Objects, snap.Objects.Sets, storedOpts)
	stored.Results = append(stored.Results, judge.EveryRoute(snap.Objects, snap.Objects.Routes, storedOpts)...)
	inInput := make(map[string]bool, len(v.Results))
	for _, r := range v.Results {
		if r.Kind == "" {
			inInput[read.Name(r.Namespace, r.Name)] = true
		}
	}
	var otherSets []*gwv1.ListenerSet
	for _, ls := range snap.Objects.Sets {
		if !inInput[read.Name(ls.Namespace, ls.Name)] {
			otherSets = append(otherSets, ls)
		}
	}
	others := judge.Stored(&v.Objects, otherSets, storedOpts)
	// The cluster's routes against the files: those the files' sets
	// detach, or attach again, show as introduced or fixed.
	others.Results = append(others.Results, judge.EveryRoute(&v.Objects, v.ClusterRoutes(), storedOpts)...)
	judge.Compare(v, stored, others)
	judge.DropPassingRoutes(v)
	return offline.Report(v, opts)
}
