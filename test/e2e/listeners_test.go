package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/listing"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// listenersGateway is the Gateway of listing/testdata/merged.yaml, the
// fixture of the listing package's golden tests.
const listenersGateway = "lst-infra/shared"

// listenersNamespaces are the fixture's namespaces (kept after the test:
// without kube-controller-manager a deleted namespace never goes away).
var listenersNamespaces = []string{"lst-infra", "lst-outside", "lst-team-a", "lst-team-b"}

// TestListenersCommand: `kubectl listenerset listeners --kubeconfig` prints,
// for the fixture applied to the real kube-apiserver, the rows
// `listeners -f` prints for the same manifests, in every format; and
// precedence follows the creation times kube-apiserver gives.
//
// The fixture's sets have no creationTimestamp, so offline they count as not
// created yet and namespace/name orders them. kubectl applies them in file
// order, which is namespace/name order, within a second or across one; both
// ways the cluster's order (creation time, then namespace/name) is the same.
// The second part creates a set whose name sorts first after the clock has
// passed the others' second, so that only the creation time places it last.
func TestListenersCommand(t *testing.T) {
	requireCluster(t)
	bin, err := testproc.PluginBinary()
	if err != nil {
		t.Fatalf("building cmd/kubectl-listenerset: %v", err)
	}
	fixture := filepath.Join(root, "listing", "testdata", "merged.yaml")
	t.Cleanup(func() {
		for _, ns := range listenersNamespaces {
			kubectl(t, "", "delete", "listenersets.gateway.networking.k8s.io", "--all", "-n", ns, "--ignore-not-found")
		}
		kubectl(t, "", "delete", "gateways.gateway.networking.k8s.io", "shared", "-n", "lst-infra", "--ignore-not-found")
	})

	// lst-team-a/broken passes the CRD and only the webhook denies it: it is
	// stored with the webhook unregistered, as a set stored before the
	// webhook was installed is. The rest of the test runs with the suite's
	// webhook registered (without its cluster-aware checks).
	ctx := context.Background()
	if err := cluster.UnregisterWebhooks(ctx, namespace); err != nil {
		t.Fatal(err)
	}
	r := kubectl(t, "", "apply", "-f", fixture)
	if err := cluster.RegisterWebhooks(ctx, endpoint, namespace); err != nil {
		t.Fatalf("re-registering the webhook: %v", err) // later tests need it
	}
	if r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Output())
	}

	fromCluster := []string{"listeners", "--kubeconfig", cluster.KubeconfigPath, "--gateway", listenersGateway}
	fromFile := []string{"listeners", "-f", fixture, "--gateway", listenersGateway}
	for _, format := range []string{"", "wide", "json"} {
		t.Run("same rows -o "+format, func(t *testing.T) {
			want := runListeners(t, bin, listenersFormat(fromFile, format)...)
			got := withoutReported(t, bin, fromCluster, format)
			if got != want {
				t.Errorf("listeners --kubeconfig printed\n%s\nlisteners -f %s printed\n%s", got, fixture, want)
			}
		})
	}
	rows := listenerRows(t, runListeners(t, bin, listenersFormat(fromCluster, "json")...))
	states := map[string]bool{}
	for _, r := range rows {
		states[r.State] = true
	}
	for _, s := range []string{"Accepted", "Conflicted", "NotAllowed", "Invalid"} {
		if !states[s] {
			t.Errorf("no %s listener in the cluster's listing: %+v", s, rows)
		}
	}

	t.Run("list on three resources is all it needs", func(t *testing.T) {
		kubeconfig := listenersReader(t, "e2e-listeners-reader")
		args := []string{"listeners", "--kubeconfig", kubeconfig, "--gateway", listenersGateway}
		if got, want := withoutReported(t, bin, args, "json"), runListeners(t, bin, listenersFormat(fromFile, "json")...); got != want {
			t.Errorf("as a user who may only list gateways, listenersets and namespaces:\n%s\nwant\n%s", got, want)
		}
	})

	t.Run("the webhook denies what the listing shows Conflicted", func(t *testing.T) {
		// A new set that loses 443 to the Gateway and keeps 8081: with the
		// strict cluster-aware checks the webhook denies exactly the
		// listing's conflicts, read from the same merged list.
		newSet := `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: newcomer, namespace: lst-team-b}
spec:
  parentRef: {name: shared, namespace: lst-infra}
  listeners:
  - {name: free, port: 8081, protocol: HTTP}
  - {name: plain-443, port: 443, protocol: HTTP, hostname: new.example.com}
`
		got := kubectl(t, "", "get", "namespaces,gateways.gateway.networking.k8s.io,listenersets.gateway.networking.k8s.io", "-A", "-o", "yaml")
		if got.Err != nil {
			t.Fatalf("%v\n%s", got.Err, got.Output())
		}
		manifests := filepath.Join(t.TempDir(), "cluster-and-new.yaml")
		listenersWrite(t, manifests, got.Stdout+"\n---\n"+newSet)
		var want []string
		for _, r := range listenerRows(t, runListeners(t, bin, "listeners", "-f", manifests, "--gateway", listenersGateway, "-o", "json")) {
			if r.Source.Name == "newcomer" {
				if r.State == "Conflicted" {
					want = append(want, r.Messages...)
				} else if r.State != "Accepted" {
					t.Errorf("newcomer listener %s: %s", r.Name, r.State)
				}
			}
		}
		if len(want) != 1 {
			t.Fatalf("want one conflicted listener of newcomer in the listing, got messages %q", want)
		}
		restartWebhook(t, webhookSettings{enabled: true, strict: true})
		r := kubectl(t, newSet, "apply", "--dry-run=server", "-f", "-")
		if r.Err == nil {
			t.Fatalf("strict webhook admitted newcomer\n%s", r.Output())
		}
		// The 422's lines only: new.example.com, under lst-team-a's
		// *.example.com, also gets the first claim's warning.
		errOut := strings.Join(slices.DeleteFunc(strings.Split(r.Stderr, "\n"), func(l string) bool { return strings.HasPrefix(l, "Warning: ") }), "\n")
		denial := strings.Count(errOut, "spec.listeners[")
		if !strings.Contains(errOut, want[0]) || denial != 1 {
			t.Errorf("strict webhook's denial is not the listing's one conflict %q:\n%s", want[0], r.Output())
		}
	})

	t.Run("creation time before namespace/name", func(t *testing.T) {
		// Past the second of every set so far, the new set is the newest
		// although "aaa-late" sorts before lst-team-a/api.
		waitPastCreation(t, listenersNamespaces...)
		late := `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: aaa-late, namespace: lst-team-a}
spec:
  parentRef: {name: shared, namespace: lst-infra}
  listeners:
  - {name: late, port: 8080, protocol: HTTP, hostname: api.example.com}
`
		if r := kubectl(t, late, "apply", "-f", "-"); r.Err != nil {
			t.Fatalf("%v\n%s", r.Err, r.Output())
		}
		byName := func(rows []listing.Listener) map[string]listing.Listener {
			m := map[string]listing.Listener{}
			for _, r := range rows {
				m[r.Source.Namespace+"/"+r.Source.Name+" "+r.Name] = r
			}
			return m
		}
		onCluster := byName(listenerRows(t, runListeners(t, bin, listenersFormat(fromCluster, "json")...)))
		if r := onCluster["lst-team-a/aaa-late late"]; r.State != "Conflicted" || r.Winner == nil || r.Winner.Source.Name != "api" {
			t.Errorf("on the cluster, lst-team-a/aaa-late is the newest and loses to lst-team-a/api: %+v", r)
		}
		// The same manifests without creation times: namespace/name puts
		// aaa-late first, and lst-team-a/api loses instead.
		manifests := filepath.Join(t.TempDir(), "with-late.yaml")
		listenersWrite(t, manifests, listenersRead(t, fixture)+"\n---\n"+late)
		offline := byName(listenerRows(t, runListeners(t, bin, "listeners", "-f", manifests, "--gateway", listenersGateway, "-o", "json")))
		if r := offline["lst-team-a/api api"]; r.State != "Conflicted" || r.Winner == nil || r.Winner.Source.Name != "aaa-late" {
			t.Errorf("offline without creation times, lst-team-a/aaa-late sorts first and wins: %+v", r)
		}
		// What kubectl get prints keeps the creation times, and lists as
		// the cluster does.
		got := kubectl(t, "", "get", "namespaces,gateways.gateway.networking.k8s.io,listenersets.gateway.networking.k8s.io", "-A", "-o", "yaml")
		if got.Err != nil {
			t.Fatalf("%v\n%s", got.Err, got.Output())
		}
		dump := filepath.Join(t.TempDir(), "cluster.yaml")
		listenersWrite(t, dump, got.Stdout)
		for _, format := range []string{"", "wide", "json"} {
			want := withoutReported(t, bin, fromCluster, format)
			if got := runListeners(t, bin, listenersFormat([]string{"listeners", "-f", dump, "--gateway", listenersGateway}, format)...); got != want {
				t.Errorf("-o %q: listeners -f on kubectl get's output printed\n%s\nlisteners --kubeconfig printed\n%s", format, got, want)
			}
		}
	})
}

func listenersFormat(args []string, format string) []string {
	if format == "" {
		return args
	}
	return append(args[:len(args):len(args)], "-o", format)
}

// withoutReported is what listeners (args, from a cluster) prints in
// format without the reported status: the listing of its -o json with
// every reported and difference null, rendered by listing.Write as the
// binary renders it, which is what listeners -f prints of the same
// objects (manifests carry no status to compare; TestReportedStatus holds
// the status itself). It checks first that the binary's own output in
// format is its -o json's rendering.
func withoutReported(t *testing.T, bin string, args []string, format string) string {
	t.Helper()
	doc := runListeners(t, bin, listenersFormat(args, "json")...)
	var l listing.Listing
	if err := json.Unmarshal([]byte(doc), &l); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	render := func() string {
		var b strings.Builder
		if err := listing.Write(&b, &l, listing.Format(format)); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if got, own := runListeners(t, bin, listenersFormat(args, format)...), render(); got != own {
		t.Fatalf("listeners -o %q printed\n%s\nits -o json rendered so is\n%s", format, got, own)
	}
	for g := range l.Gateways {
		for i := range l.Gateways[g].Listeners {
			l.Gateways[g].Listeners[i].Reported, l.Gateways[g].Listeners[i].Difference = nil, nil
		}
	}
	return render()
}

// runListeners runs the built binary and returns its stdout; it must exit 0
// with nothing on stderr.
func runListeners(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		t.Fatalf("kubectl-listenerset %s: %v\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("kubectl-listenerset %s wrote to stderr:\n%s", strings.Join(args, " "), stderr.String())
	}
	return stdout.String()
}

// listenerRows decodes -o json output of one Gateway.
func listenerRows(t *testing.T, out string) []listing.Listener {
	t.Helper()
	var l listing.Listing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(l.Gateways) != 1 {
		t.Fatalf("want one Gateway, got %d:\n%s", len(l.Gateways), out)
	}
	return l.Gateways[0].Listeners
}

// waitPastCreation sleeps until the clock (kube-apiserver's: it runs on
// this machine) is in a later second than every ListenerSet of namespaces
// was created in.
func waitPastCreation(t *testing.T, namespaces ...string) {
	t.Helper()
	var newest time.Time
	for _, ns := range namespaces {
		r := kubectl(t, "", "get", "listenersets.gateway.networking.k8s.io", "-n", ns, "-o", "json")
		if r.Err != nil {
			t.Fatalf("%v\n%s", r.Err, r.Output())
		}
		var list gwv1.ListenerSetList
		if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
			t.Fatal(err)
		}
		for _, ls := range list.Items {
			if c := ls.CreationTimestamp.Time; c.After(newest) {
				newest = c
			}
		}
	}
	// creationTimestamp has one-second resolution; a little margin for
	// the rounding of the clock kube-apiserver reads.
	time.Sleep(time.Until(newest.Add(time.Second + 100*time.Millisecond)))
}

// listenersReader writes a kubeconfig that acts as user (impersonated by the
// suite's admin), whom a ClusterRole grants listing.RBACRules (scoped, the default) and nothing
// else, for the test's duration.
func listenersReader(t *testing.T, user string) string {
	t.Helper()
	grant(t, user, listing.RBACRules(true))
	return listOnlyKubeconfig(t, user)
}

// listOnlyKubeconfig writes a kubeconfig that acts as user (impersonated
// by the suite's admin), once user's role is in effect: user may list
// ListenerSets and may not get Gateways.
func listOnlyKubeconfig(t *testing.T, user string) string {
	t.Helper()
	path := impersonating(t, user)
	// The role is in effect once the user can list and cannot get.
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := kubectl(t, "", "--as", user, "auth", "can-i", "list", "listenersets.gateway.networking.k8s.io", "-A")
		if r.Err == nil && strings.TrimSpace(r.Stdout) == "yes" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the role of %s not in effect after 30s: %s", user, r.Output())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r := kubectl(t, "", "--as", user, "auth", "can-i", "get", "gateways.gateway.networking.k8s.io", "-A"); strings.TrimSpace(r.Stdout) != "no" {
		t.Fatalf("%s may get gateways; the test wants list only: %s", user, r.Output())
	}
	return path
}

// impersonating writes a kubeconfig that acts as user, impersonated by the
// suite's admin.
func impersonating(t *testing.T, user string) string {
	t.Helper()
	cfg, err := clientcmd.Load(cluster.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = user
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func listenersRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func listenersWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
