package chart

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/airlock/listenerset-webhook/policy"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// runbookPage is the page whose commands TestRunbookCommands runs.
const runbookPage = "docs/runbook.md"

// runbook reads the runbook's sh blocks, and the inline code spans of its
// prose (outside every block).
func runbook(t *testing.T) (blocks []pageBlock, spans []string) {
	t.Helper()
	p := readPage(t, runbookPage)
	return p.ofLang("sh"), p.spans
}

// TestRunbookCommandsAreInBlocks: every command the runbook tells to run is
// in an sh block (which TestRunbookCommands runs): no kubectl or helm command
// hides in its prose (but the offline plugin's, which test/docs runs), and
// the first block sets NS and RELEASE.
func TestRunbookCommandsAreInBlocks(t *testing.T) {
	blocks, spans := runbook(t)
	require.NotEmpty(t, blocks)
	assert.Regexp(t, `^NS=\S+ RELEASE=\S+\n$`, blocks[0].text, "the first block sets NS and RELEASE")
	for _, s := range spans {
		if strings.HasPrefix(s, "kubectl listenerset ") {
			continue
		}
		for _, tool := range []string{"kubectl ", "helm ", "argocd ", "flux "} {
			assert.False(t, strings.HasPrefix(s, tool), "%s tells to run `%s` outside an sh block, where no test runs it", runbookPage, s)
		}
	}
}

// runbookRunner runs the runbook's blocks with docShell, as every page's
// commands are run, and counts which ran.
type runbookRunner struct {
	t      *testing.T
	sh     docShell
	blocks []pageBlock
	ran    map[int]bool
}

// newRunbookRunner runs blocks against the cluster of kubeconfig, with the
// kubectl of kubectlDir, the tests' helm and the built kubectl plugin.
func newRunbookRunner(t *testing.T, blocks []pageBlock, kubeconfig, kubectlDir string) *runbookRunner {
	t.Helper()
	return &runbookRunner{t: t, sh: newDocShell(t, kubeconfig, kubectlDir), blocks: blocks, ran: map[int]bool{}}
}

// dir is the directory the blocks run in (the files they write).
func (r *runbookRunner) dir() string { return r.sh.dir }

// run runs the index-th block under the heading that starts with heading,
// with the page's NS and RELEASE set to ns and rel; it fails the test when
// the block fails or kubectl or helm print an error. It returns the block's
// stdout.
func (r *runbookRunner) run(heading string, index int, ns, rel string) string {
	r.t.Helper()
	n := 0
	for i, b := range r.blocks {
		if !strings.HasPrefix(b.heading, heading) {
			continue
		}
		if n++; n-1 != index {
			continue
		}
		r.t.Logf("%s:%d (%s) with NS=%s RELEASE=%s:", runbookPage, b.line, b.heading, ns, rel)
		out := r.sh.run(r.t.Context(), r.t, pageScript(r.t, b.text, map[string]string{"NS": ns, "RELEASE": rel}))
		require.Zero(r.t, out.code, "%s:%d: the block failed", runbookPage, b.line)
		for _, bad := range []string{"error:", "Error from server", "Error: "} {
			require.NotContains(r.t, out.stderr, bad, "%s:%d", runbookPage, b.line)
		}
		r.ran[i] = true
		return out.stdout
	}
	r.t.Fatalf("%s has no block %d under a heading %q", runbookPage, index, heading)
	return ""
}

// TestRunbookCommands runs every command of docs/runbook.md, read from the
// page, against a real kube-apiserver with the chart installed by the real
// helm as the page's NS and RELEASE (self-bootstrapped; the webhook a
// process with the Deployment's args and its ServiceAccount, behind the
// Service), in the situations they are for, and checks that each way out
// works: the webhook down (failurePolicy patched to Ignore: writes pass),
// the webhook up and wrong (the enforcement label, on one namespace and on
// all: the write denied in a plain namespace is admitted with the denial's
// findings as warnings, counted as warned by the namespace, and denied
// again once the label is gone, the namespaces in warn before put back;
// the default bypass label: writes pass, and fail again without it; the
// configuration deleted: writes pass, and the rollback restores it, its
// caBundle filled in by the webhook, and the denial), the policy wrong (the
// enforcement label, on one namespace and on all, moves it to the Warn
// binding: the policy's message as a warning, denied again without; both
// its bindings, the rules' and the declared hostnames', patched to Warn and
// Audit: the write passes with a warning).
// The diagnostics run too and must not fail.
// No kubelet runs here, so the commands that read pods find none (the node
// suite runs pods).
func TestRunbookCommands(t *testing.T) {
	c := cluster(t)
	ctx := t.Context()
	blocks, _ := runbook(t)
	m := regexp.MustCompile(`^NS=(\S+) RELEASE=(\S+)\n$`).FindStringSubmatch(blocks[0].text)
	require.NotNil(t, m, "the first block sets NS and RELEASE")
	ns, name := m[1], m[2]
	const appNS = "team-a" // the page's own example namespace
	require.Contains(t, name, "listenerset-webhook", "the page's RELEASE names its objects")

	r := newRunbookRunner(t, blocks, c.KubeconfigPath, filepath.Dir(c.KubectlPath))
	r.run("", 0, ns, name)

	ensureLabelledNamespace(ctx, t, c.Client, appNS, map[string]string{"lsw-e2e": "runbook"})
	rel := installChart(ctx, t, c, name, ns, "--set", "certManager.enabled=false",
		"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e=runbook")
	rel.full = name
	t.Cleanup(func() {
		_, _ = runHelm(context.Background(), t, c.KubeconfigPath, "uninstall", name, "--namespace", ns)
	})
	pod := rel.deployment(ctx, t, c.Client).Spec.Template.Spec
	replica := newReplica(t, "r0", pod.Containers[0].Args, "--kubeconfig="+serviceAccountKubeconfig(t, c, ns, pod.ServiceAccountName))
	replica.start(t)
	replica.waitReady(t, 90*time.Second)
	endpointSlice(ctx, t, c.Client, rel, replica, hostIP(t))

	denied := func() error {
		err := c.Client.Create(ctx, listenerSet(appNS, "runbook", false), client.DryRunAll)
		if err == nil {
			return errors.New("admitted")
		}
		if !strings.Contains(err.Error(), "denied the request") {
			return err
		}
		return nil
	}
	admitted := func() error { return c.Client.Create(ctx, listenerSet(appNS, "runbook", false), client.DryRunAll) }
	eventually(t, 60*time.Second, "the webhook denies an invalid ListenerSet", denied)

	// The denial's findings, each as the warn twin must warn it, first,
	// then the warnings the denial had (LS309: the parent is unknown).
	wc, warns := warningClient(t, c)
	warns.take()
	deniedErr := wc.Create(ctx, listenerSet(appNS, "runbook", false), client.DryRunAll)
	denialWarnings := warns.take()
	var status apierrors.APIStatus
	require.ErrorAs(t, deniedErr, &status)
	require.NotNil(t, status.Status().Details)
	var findings []string
	for _, cause := range status.Status().Details.Causes {
		findings = append(findings, cause.Field+": "+fmt.Sprintf(validation.WarnWouldDeny, cause.Message))
	}
	require.NotEmpty(t, findings, "%v", deniedErr)
	findings = append(findings, denialWarnings...)
	warned := func() error {
		warns.take()
		if err := wc.Create(ctx, listenerSet(appNS, "runbook", false), client.DryRunAll); err != nil {
			return err
		}
		if got := warns.take(); !assert.ObjectsAreEqual(findings, got) {
			return fmt.Errorf("warnings %q, want the denial's findings and warnings %q", got, findings)
		}
		return nil
	}
	const warnedSeries = admission.WouldDenyMetric + `{field="spec.listeners[*].protocol",reason="FieldValueNotSupported",source="namespace"}`

	t.Run("a wrong denial, one namespace: warn instead", func(t *testing.T) {
		before := replica.series(t, warnedSeries)
		r.run("A wrong denial", 0, ns, name)
		eventually(t, 30*time.Second, "the labelled namespace's write is admitted with the findings as warnings", warned)
		assert.Greater(t, replica.series(t, warnedSeries), before, "counted as warned by the namespace")
		r.run("A wrong denial", 2, ns, name)
		eventually(t, 30*time.Second, "denied again without the label", denied)
	})

	t.Run("a wrong denial, every namespace: warn instead", func(t *testing.T) {
		const warnedBefore = "lsw-runbook-warned" // in warn before the incident, and after it
		ensureLabelledNamespace(ctx, t, c.Client, warnedBefore, map[string]string{enforcementLabel: "warn"})
		r.run("A wrong denial", 1, ns, name)
		eventually(t, 30*time.Second, "every namespace's write is admitted with the findings as warnings", warned)
		r.run("A wrong denial", 3, ns, name)
		eventually(t, 30*time.Second, "denied again without the labels", denied)
		var nss corev1.NamespaceList
		require.NoError(t, c.Client.List(ctx, &nss, client.HasLabels{enforcementLabel}))
		var still []string
		for _, n := range nss.Items {
			still = append(still, n.Name)
		}
		assert.Equal(t, []string{warnedBefore}, still, "only the namespace in warn before keeps the label")
	})

	t.Run("a wrong denial, one namespace: the bypass label", func(t *testing.T) {
		r.run("A wrong denial", 4, ns, name)
		eventually(t, 30*time.Second, "the labelled namespace's write is admitted", admitted)
		r.run("A wrong denial", 5, ns, name)
		eventually(t, 30*time.Second, "denied again without the label", denied)
	})

	t.Run("a wrong denial, everywhere: the configuration deleted, then restored", func(t *testing.T) {
		r.run("A wrong denial", 6, ns, name)
		assert.FileExists(t, filepath.Join(r.dir(), "validatingwebhookconfiguration-"+name+".yaml"), "saved first")
		eventually(t, 30*time.Second, "admitted without the configuration", admitted)
		r.run("A wrong denial", 7, ns, name)
		eventually(t, 60*time.Second, "the webhook fills in the restored configuration's caBundle", func() error {
			v := &admissionregv1.ValidatingWebhookConfiguration{}
			if err := c.Client.Get(ctx, client.ObjectKey{Name: name}, v); err != nil {
				return err
			}
			if len(v.Webhooks[0].ClientConfig.CABundle) == 0 {
				return errors.New("no caBundle yet")
			}
			return nil
		})
		subject := r.run("A wrong denial", 8, ns, name)
		assert.Contains(t, subject, "subject=")
		eventually(t, 60*time.Second, "denied again", denied)
	})

	t.Run("the webhook down: failurePolicy Ignore", func(t *testing.T) {
		replica.stop(t)
		eventually(t, 30*time.Second, "a write fails while the webhook is down", func() error {
			err := c.Client.Create(ctx, listenerSet(appNS, "runbook", true), client.DryRunAll)
			if err == nil || !strings.Contains(err.Error(), "failed calling webhook") {
				return fmt.Errorf("not failing yet: %v", err)
			}
			return nil
		})
		r.run("The webhook is down", 0, ns, name)
		assert.Contains(t, r.run("The webhook is down", 1, ns, name), `error_type="calling_webhook_error"`, "kube-apiserver counted the failed calls")
		r.run("The webhook is down", 2, ns, name)
		eventually(t, 30*time.Second, "writes pass unchecked", func() error {
			return c.Client.Create(ctx, listenerSet(appNS, "runbook", true), client.DryRunAll)
		})
		r.run("The webhook is down", 3, ns, name)
	})

	t.Run("diagnostics", func(t *testing.T) {
		subjects := regexp.MustCompile(`(?m)^subject=.*$`).FindAllString(r.run("`x509", 0, ns, name), -1)
		require.Len(t, subjects, 2, "the caBundle's CA and the Secret's")
		assert.Equal(t, subjects[0], subjects[1])
		assert.Contains(t, subjects[0], "listenerset-webhook-ca")
		r.run("ListenerSetWebhookCallsNearTimeout", 0, ns, name)
		assert.Contains(t, r.run("ListenerSetWebhookClusterViewNotSynced", 0, ns, name), "yes")
		// Without networkPolicy.metricsFrom only the webhook port is open: no one scrapes.
		assert.Equal(t, `[{"ports":[{"port":"webhook","protocol":"TCP"}]}]`, r.run("ListenerSetWebhookDown", 0, ns, name), "the NetworkPolicy's ingress")
		r.run("ListenerSetWebhookShedding", 0, ns, name)
		r.run("ListenerSetWebhookCertificateNotRenewed", 0, ns, name)
		r.run("ListenerSetWebhookCertificateNotRenewed", 1, ns, name)
	})

	t.Run("the policy wrong: validationActions Warn and Audit", func(t *testing.T) {
		const polName, polNS, polApps = "listenerset-webhook-policy", "listenerset-webhook-policy", "lsw-runbook-policy-apps"
		ensureLabelledNamespace(ctx, t, c.Client, polApps, map[string]string{"lsw-e2e": "runbook-policy"})
		pol := installChart(ctx, t, c, polName, polNS, "--set", "admission.mode=policy",
			"--set-string", "webhook.namespaceSelector.matchLabels.lsw-e2e=runbook-policy")
		pol.full = polName
		t.Cleanup(func() {
			_, _ = runHelm(context.Background(), t, c.KubeconfigPath, "uninstall", polName, "--namespace", polNS)
		})
		eventually(t, 30*time.Second, "the policy denies", func() error {
			return deniedByPolicy(c.Client.Create(ctx, listenerSet(polApps, "runbook", false), client.DryRunAll), polName)
		})

		// The enforcement label moves a namespace, or all, to the binding
		// with Warn: the policy's message, as a warning.
		polErr := c.Client.Create(ctx, listenerSet(polApps, "runbook", false), client.DryRunAll)
		require.Error(t, polErr)
		_, message, ok := strings.Cut(polErr.Error(), "denied request: ")
		require.True(t, ok, "%v", polErr)
		policyWarned := func() error {
			warns.take()
			if err := wc.Create(ctx, listenerSet(polApps, "runbook", false), client.DryRunAll); err != nil {
				return err
			}
			want := "Validation failed for ValidatingAdmissionPolicy '" + polName + "' with binding '" + polName + "-warn': " + message
			if got := warns.take(); !slices.Contains(got, want) {
				return fmt.Errorf("warnings %q, want %q", got, want)
			}
			return nil
		}
		policyDenied := func() error {
			return deniedByPolicy(c.Client.Create(ctx, listenerSet(polApps, "runbook", false), client.DryRunAll), polName)
		}
		setNamespaceLabel(ctx, t, c.Client, polApps, enforcementLabel, "warn")
		eventually(t, 30*time.Second, "one namespace labelled: the policy's message as a warning", policyWarned)
		setNamespaceLabel(ctx, t, c.Client, polApps, enforcementLabel, "")
		eventually(t, 30*time.Second, "denied again without the label", policyDenied)
		r.run("A wrong denial", 1, polNS, polName)
		eventually(t, 30*time.Second, "every namespace labelled: the policy's message as a warning", policyWarned)
		r.run("A wrong denial", 3, polNS, polName)
		eventually(t, 30*time.Second, "denied again without the labels", policyDenied)

		// both bindings, the rules' and the declared hostnames': a usual set
		// whose hostname its Namespace does not declare is denied by the
		// second alone
		bindingsAre := func(want ...admissionregv1.ValidationAction) {
			t.Helper()
			for _, name := range []string{polName, policy.DeclarationsPrefix + polName} {
				var b admissionregv1.ValidatingAdmissionPolicyBinding
				require.NoError(t, c.Client.Get(ctx, client.ObjectKey{Name: name}, &b))
				assert.Equal(t, want, b.Spec.ValidationActions, name)
			}
		}
		r.run("The policy is wrong", 0, polNS, polName)
		bindingsAre(admissionregv1.Warn, admissionregv1.Audit)
		eventually(t, 30*time.Second, "admitted with the policy's message as a warning", func() error {
			warns.take()
			if err := wc.Create(ctx, listenerSet(polApps, "runbook", false), client.DryRunAll); err != nil {
				return err
			}
			if w := strings.Join(warns.take(), "\n"); !strings.Contains(w, "Validation failed for ValidatingAdmissionPolicy '"+polName+"'") {
				return fmt.Errorf("no warning of the policy: %q", w)
			}
			return nil
		})
		r.run("The policy is wrong", 1, polNS, polName)
		bindingsAre(admissionregv1.Deny)
		eventually(t, 30*time.Second, "denied again", func() error {
			return deniedByPolicy(c.Client.Create(ctx, listenerSet(polApps, "runbook", false), client.DryRunAll), polName)
		})
	})

	for i, b := range blocks {
		assert.True(t, r.ran[i], "%s:%d (%s): no test ran this block", runbookPage, b.line, b.heading)
	}
}
