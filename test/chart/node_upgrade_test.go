package chart

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/hack/node"
)

// The second release the node suite upgrades to: built from this tree with
// one change that needs its own image, a flag of the server that the first
// release's binary does not know and the second release's chart passes (so
// that new templates on the old image crash-loop, as an upgrade that keeps
// the old image.digest would).
const (
	upgradeTestVersion = "v0.0.1-node"
	upgradeFlag        = "--upgrade-test-marker"
)

// buildSecondRelease copies the repository's files (tracked and new, as the
// working tree has them) into a directory of its own, adds upgradeFlag to
// the server and passes it from the chart's Deployment, and builds the
// release there with make release (the tools are the first build's: bin/ is
// a link to this repository's). Returns its dist directory.
func buildSecondRelease(ctx context.Context, t *testing.T, tmp string, env []string) string {
	t.Helper()
	src := filepath.Join(tmp, "second")
	out, err := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	require.NoError(t, err)
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if f == "" || strings.HasPrefix(f, "bin/") {
			continue
		}
		info, err := os.Lstat(filepath.Join(root, f))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the working tree, or a link
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(src, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(src, f), b, info.Mode().Perm()))
	}
	require.NoError(t, os.Symlink(filepath.Join(root, "bin"), filepath.Join(src, "bin")))
	patch := func(file, anchor, add string) {
		p := filepath.Join(src, file)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, 1, strings.Count(string(b), anchor), "%s: the line the second release is patched after: %q", file, anchor)
		require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), anchor, anchor+add, 1)), 0o644))
	}
	patch("cmd/listenerset-webhook/main.go", `fs := flag.NewFlagSet("listenerset-webhook", flag.ContinueOnError)`,
		"\n\tfs.String(\""+strings.TrimPrefix(upgradeFlag, "--")+"\", \"\", \"the node suite's second release: a flag only it knows\")")
	patch("charts/listenerset-webhook/templates/deployment.yaml", "            - --port={{ .Values.webhook.port }}",
		"\n            - "+upgradeFlag+"=second")

	dist := filepath.Join(tmp, "dist-second")
	head, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD").Output()
	require.NoError(t, err)
	start := time.Now()
	// No .git in the copy: the commit and the date are given.
	runMakeIn(ctx, t, src, append(env, "DIST="+dist, "COMMIT="+strings.TrimSpace(string(head))+"-second",
		fmt.Sprintf("SOURCE_DATE_EPOCH=%d", time.Now().Unix())), "release", "VERSION="+upgradeTestVersion)
	t.Logf("the second release (%s, with %s) built in %s", upgradeTestVersion, upgradeFlag, time.Since(start).Round(time.Second))
	return dist
}

// docRelease is a release as the pages' commands see it.
type docRelease struct {
	dist, version, chartVersion, digest string
}

func (r docRelease) tgz() string { return imageName + "-" + r.chartVersion + ".tgz" }

// docsAsWritten runs the README's install, docs/adoption.md's switch to deny,
// docs/tenancy-capsule.md's switch to Capsule's tenants (then the release is
// rolled back to deny alone) and docs/upgrade.md's upgrade and rollback,
// each page's commands as the page has them (docBlocks), from first to
// second and back, in cert-manager mode (the chart's default; the test
// plays cert-manager as TestNode's CertManagerMode does). After each step
// every pod runs the image that step names (by digest, as containerd
// pulled it) and helm test has passed (the pages run it); the upgrade and
// the rollback run under load through kube-apiserver with failurePolicy
// Fail, and no request may fail.
func docsAsWritten(t *testing.T, n *node.Node, c client.Client, registry, caFile, pub string, first, second docRelease) {
	ctx := t.Context()
	const ns, appNS = imageName, "lsw-node-docs-apps" // the pages' namespace and release name
	ensureLabelledNamespace(ctx, t, c, appNS, nil)
	imageRepo := registry + "/" + imageName
	rel := &helmRelease{name: imageName, ns: ns, kubeconfig: n.Kubeconfig}
	t.Cleanup(func() {
		_, _ = runHelm(context.Background(), t, n.Kubeconfig, "uninstall", rel.name, "--namespace", ns, "--wait", "--timeout", "2m")
	})

	sh := newDocShell(t, n.Kubeconfig, n.BinDir, filepath.Join(root, "bin"))
	sh.env = append(sh.env,
		// The registry's CA for helm and cosign (Go's TLS reads it) without the pages' --ca-file flags.
		"SSL_CERT_FILE="+caFile,
		// cosign offline (runCosign): no Sigstore trust root from the internet.
		"SIGSTORE_REKOR_PUBLIC_KEY="+pub)
	// The user's directory: the release's public key and the chart's signature.
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(sh.dir, to), b, 0o644))
	}
	copyFile(pub, "cosign.pub")
	for _, r := range []docRelease{first, second} {
		copyFile(filepath.Join(r.dist, r.tgz()+".sig"), r.tgz()+".sig")
	}
	// script is a page's block with r's values for its variables.
	script := func(block string, r docRelease) string {
		return pageScript(t, block, map[string]string{"REGISTRY": registry, "VERSION": r.chartVersion, "DIGEST": r.digest, "NS": ns, "RELEASE": rel.name})
	}
	// runsImage: the two pods that serve (Ready, not terminating) run r's
	// image, with or without the second release's flag; a pod still
	// draining after a rollout (out of the endpoints, for up to its
	// shutdown timeout) runs the image it replaced: waiting for it to go
	// would add that timeout to the suite and prove nothing more.
	runsImage := func(r, replaced docRelease, flag bool) {
		t.Helper()
		serving := servingPods(ctx, t, n.Client, rel, 2, 3*time.Minute)
		for _, p := range serving {
			require.Len(t, p.Status.ContainerStatuses, 1)
			assert.Equal(t, imageRepo+"@"+r.digest, p.Spec.Containers[0].Image, p.Name)
			assert.Equal(t, imageRepo+"@"+r.digest, p.Status.ContainerStatuses[0].ImageID, "%s: containerd ran the image it pulled", p.Name)
			assert.Equal(t, flag, strings.Contains(strings.Join(p.Spec.Containers[0].Args, " "), upgradeFlag), "%s: %s", p.Name, p.Spec.Containers[0].Args)
			assert.Zero(t, p.Status.ContainerStatuses[0].RestartCount, p.Name)
		}
		all, err := n.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + imageName})
		require.NoError(t, err)
		draining := 0
		for _, p := range all.Items {
			if !slices.Contains(podNames(serving), p.Name) {
				require.NotNil(t, p.DeletionTimestamp, "%s: a pod of %s besides the two serving ones, not terminating", p.Name, p.Spec.Containers[0].Image)
				// The replaced image's, or (a drain lasting into the next step) the one before it.
				assert.Contains(t, []string{imageRepo + "@" + replaced.digest, imageRepo + "@" + r.digest}, p.Spec.Containers[0].Image,
					"%s: draining", p.Name)
				draining++
			}
		}
		t.Logf("two pods serving %s; %d draining", r.version, draining)
	}

	t.Run("READMEInstall", func(t *testing.T) {
		blocks := docBlocks(t, "README.md", "Install with Helm")
		require.Len(t, blocks, 1)
		// The page's install waits for the pods, which wait for the
		// serving certificate: cert-manager's part is played meanwhile.
		type result struct {
			out  string
			code int
		}
		done := make(chan result, 1)
		go func() {
			r, err := sh.exec(ctx, script(blocks[0], first))
			if err != nil {
				r.output += err.Error()
				r.code = -1
			}
			done <- result{r.output, r.code}
		}()
		var r result
		issued := false
		eventually(t, 5*time.Minute, "the README's commands issued the Certificate", func() error {
			select {
			case r = <-done:
				issued = true // ended before: reported below
				return nil
			default:
			}
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(cmapi.SchemeGroupVersion.WithKind("Certificate"))
			if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: imageName + "-serving"}, u); err != nil {
				return err
			}
			for _, v := range []client.Object{&admissionv1.MutatingWebhookConfiguration{}, &admissionv1.ValidatingWebhookConfiguration{}} {
				if err := c.Get(ctx, types.NamespacedName{Name: imageName}, v); err != nil {
					return err
				}
			}
			return nil
		})
		if !issued {
			issueLikeCertManager(ctx, t, c, ns, imageName)
			injectLikeCAInjector(ctx, t, c, imageName)
			r = <-done
		}
		t.Logf("README's install:\n%s", r.out)
		require.Zero(t, r.code, "the README's commands failed:\n%s", r.out)
		assert.Contains(t, r.out, "The signatures were verified against the specified public key")
		assert.Contains(t, r.out, "Verified OK")
		assert.Contains(t, r.out, "Phase:          Succeeded", "helm test passed")
		runsImage(first, first, false)
		out := sh.mustRun(ctx, t, script(docBlocks(t, "docs/adoption.md", "1. Install with `webhook.enforcement=warn`")[0], first))
		assert.Equal(t, "Ignore", strings.TrimSpace(out), "warn mode fails open")
	})

	t.Run("AdoptionEnforce", func(t *testing.T) {
		out := sh.mustRun(ctx, t, script(docBlocks(t, "docs/adoption.md", "4. Enforce")[0], first))
		assert.Contains(t, out, "Fail\n")
		assert.Contains(t, out, "Phase:          Succeeded", "helm test passed")
		runsImage(first, first, false)
		eventually(t, 60*time.Second, "the webhook denies", func() error { return checkAdmission(ctx, c, appNS, 0) })
		for i := range 10 {
			require.NoError(t, checkAdmission(ctx, c, appNS, i))
		}
		checkServed(t, servingPods(ctx, t, n.Client, rel, 2, time.Minute), 11)
	})
	if t.Failed() {
		return
	}

	// docs/tenancy-capsule.md's commands on this release: the cluster
	// checks with Capsule's tenant label and first claims denied, then the
	// audit; afterwards the release as it was, for the upgrade.
	revision := helmRevision(ctx, t, rel)
	t.Run("TenancyCapsule", func(t *testing.T) {
		storeCapsuleStory(ctx, t, c)
		r := sh.run(ctx, t, script(docBlocks(t, "docs/tenancy-capsule.md", "Recipe: Capsule tenants")[0], first))
		require.Contains(t, r.output, `Release "`+rel.name+`" has been upgraded`)
		// The audit's exit status: a stored set would be denied, the squatter.
		assert.Equal(t, 1, r.code, "the audit exits 1 on the stored squatter:\n%s", r.output)
		assert.Contains(t, r.stdout, "team-c/login")
		assert.Contains(t, r.stdout, `spec.listeners[0].hostname: Forbidden: hostname "login.a.example.com" `+capsuleHeld)
		assert.NotContains(t, r.stdout, `The ListenerSet "team-a/portal" is invalid`, "portal came first")
		// The new webhook entries (the routes', the deletions'): cainjector's part.
		injectLikeCAInjector(ctx, t, c, imageName)
		runsImage(first, first, false)
		for _, p := range servingPods(ctx, t, n.Client, rel, 2, time.Minute) {
			assert.Subset(t, p.Spec.Containers[0].Args, []string{"--cluster-checks", "--tenant-label=capsule.clastix.io/tenant", "--first-claim=deny"}, p.Name)
		}
		// The same claim under alpha's wildcard: beta's denied, naming the
		// holder; alpha's other namespace's admitted (one owner).
		eventually(t, time.Minute, "tenant beta's claim under tenant alpha's name is denied", capsuleDenied(ctx, c, capsuleClaim("team-c", "pay", "pay.a.example.com")))
		require.NoError(t, c.Create(ctx, capsuleClaim("team-b", "pay", "pay.a.example.com"), client.DryRunAll), "tenant alpha's own namespace")
		require.NoError(t, checkAdmission(ctx, c, appNS, 0))
	})
	t.Run("TenancyCapsulePutBack", func(t *testing.T) {
		rel.helm(ctx, t, "rollback", rel.name, fmt.Sprint(revision), "--wait", "--timeout", "5m")
		runsImage(first, first, false)
		for _, p := range servingPods(ctx, t, n.Client, rel, 2, time.Minute) {
			assert.NotContains(t, p.Spec.Containers[0].Args, "--cluster-checks", p.Name)
		}
		eventually(t, 60*time.Second, "the webhook denies", func() error { return checkAdmission(ctx, c, appNS, 0) })
	})

	// Why the page does not say --reuse-values: it keeps the first
	// release's image.digest under the second release's templates.
	t.Run("ReuseValuesWouldKeepTheOldImage", func(t *testing.T) {
		out, err := runHelm(ctx, t, n.Kubeconfig, "upgrade", rel.name, filepath.Join(second.dist, second.tgz()), "-n", ns,
			"--reuse-values", "--dry-run=server")
		require.NoError(t, err, out)
		assert.Contains(t, out, imageRepo+"@"+first.digest, "the old image")
		assert.Contains(t, out, upgradeFlag, "with the new flag")
		assert.NotContains(t, out, second.digest)
	})

	upgradeVars := second
	t.Run("Upgrade", func(t *testing.T) {
		top := docBlocks(t, "docs/upgrade.md", "Upgrading and rolling back")
		require.Len(t, top, 1)
		before := docBlocks(t, "docs/upgrade.md", "Before")
		require.Len(t, before, 2, "the signatures, the preview")
		sh.mustRun(ctx, t, script(top[0]+before[0], upgradeVars))

		diff := sh.run(ctx, t, script(top[0]+before[1], upgradeVars))
		out, code := diff.output, diff.code
		assert.Equal(t, 1, code, "kubectl diff exits 1 when something differs:\n%s", out)
		assert.True(t, diffLine(out, "-", "image: "+imageRepo+"@"+first.digest), "the old image removed:\n%s", out)
		assert.True(t, diffLine(out, "+", "image: "+imageRepo+"@"+second.digest), "the new image added")
		assert.True(t, diffLine(out, "+", upgradeFlag+"=second"), "the new flag added")
		// Why the page adds --force-conflicts: the server-side diff as
		// kubectl's own manager conflicts with helm's on what changes.
		diff = sh.run(ctx, t, "kubectl diff --server-side -f new.yaml")
		out, code = diff.output, diff.code
		assert.Greater(t, code, 1, "kubectl diff --server-side without --force-conflicts:\n%s", out)
		assert.Contains(t, out, "conflict")

		l := startLoad(t, n.Kubeconfig, appNS, 2)
		l.await(t, 10, 30*time.Second) // the load goes through kube-apiserver before the upgrade
		passed, start := l.progress(t).Passed, time.Now()
		out = sh.mustRun(ctx, t, script(top[0]+docBlocks(t, "docs/upgrade.md", "Upgrade")[0], upgradeVars))
		during := l.progress(t).Passed - passed
		assert.Contains(t, out, "Phase:          Succeeded", "helm test passed")
		runsImage(second, first, true)
		took := time.Since(start)
		l.await(t, 10, 30*time.Second) // through the new pods
		r := l.stop(t)
		t.Logf("upgrade %s -> %s as docs/upgrade.md: %s; load tool: %d request pairs (%d passed while the page's commands ran), %d failed; pair p50 %.1f ms, p99 %.1f ms",
			first.version, second.version, took.Round(100*time.Millisecond), r.Pairs, during, r.Failed, r.P50Ms, r.P99Ms)
		lostNone(t, r, "the upgrade")
		assert.Positive(t, during, "request pairs passed while the upgrade ran")
		assert.Greater(t, r.Passed, int64(20))
	})

	t.Run("Rollback", func(t *testing.T) {
		top := docBlocks(t, "docs/upgrade.md", "Upgrading and rolling back")
		l := startLoad(t, n.Kubeconfig, appNS, 2)
		l.await(t, 10, 30*time.Second)
		passed, start := l.progress(t).Passed, time.Now()
		out := sh.mustRun(ctx, t, script(top[0]+docBlocks(t, "docs/upgrade.md", "Roll back")[0], upgradeVars))
		during := l.progress(t).Passed - passed
		assert.Contains(t, out, "Phase:          Succeeded", "helm test passed")
		runsImage(first, second, false)
		took := time.Since(start)
		l.await(t, 10, 30*time.Second)
		r := l.stop(t)
		t.Logf("rollback as docs/upgrade.md: %s; load tool: %d request pairs (%d passed while the page's commands ran), %d failed; pair p50 %.1f ms, p99 %.1f ms",
			took.Round(100*time.Millisecond), r.Pairs, during, r.Failed, r.P50Ms, r.P99Ms)
		lostNone(t, r, "the rollback")
		assert.Positive(t, during, "request pairs passed while the rollback ran")
		assert.Greater(t, r.Passed, int64(20))
	})
}

// diffLine says whether a line of a diff starts with sign and contains s.
func diffLine(out, sign, s string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, sign) && strings.Contains(l, s) {
			return true
		}
	}
	return false
}
