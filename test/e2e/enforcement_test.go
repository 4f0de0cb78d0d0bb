package e2e

import (
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// TestEnforcementWarn: with --enforcement=warn (cluster checks and strict
// on) an object the webhook would deny is stored, and kubectl prints each
// error as a warning beginning "would be denied", counted in
// listenerset_webhook_would_deny_total; once back to deny, the same object
// is refused with the same errors. The adoption path of docs/adoption.md.
func TestEnforcementWarn(t *testing.T) {
	requireCluster(t)
	const name = "enforcement-warn"
	curves := httpsListener("tls", 8443, "web-tls-cert")
	curves["tls"].(map[string]any)["options"] = map[string]any{"microgateway.airlock.com/ecdhCurves": "X448"}
	obj := listenerSet(name, curves)
	const curveError = `spec.listeners[0].tls.options[microgateway.airlock.com/ecdhCurves]: `
	const detail = `Unsupported value: "X448": supported values: "X25519MLKEM768", "X25519", "P-256", "P-384", "P-521"`
	t.Cleanup(func() { deleteLS(t, name) })

	t.Run("warn stores it", func(t *testing.T) {
		restartWebhook(t, webhookSettings{enabled: true, strict: true, warn: true})
		before := wouldDeny(t)
		r := mustApply(t, obj)
		// The lines docs/adoption.md shows.
		requireWarnings(t, r, curveError+"would be denied (enforcement warn): "+detail)
		if !strings.Contains(r.Stdout, "listenerset.gateway.networking.k8s.io/"+name+" created") {
			t.Errorf("kubectl printed:\n%s", r.Output())
		}
		if _, _, ok := get(t, name); !ok {
			t.Fatalf("not stored under warn\n--- kubectl printed:\n%s", r.Output())
		}
		if got := wouldDeny(t) - before; got != 1 {
			t.Errorf("%s for the option: %v more, want 1", admission.WouldDenyMetric, got)
		}
	})
	deleteLS(t, name)
	t.Run("deny refuses it", func(t *testing.T) {
		mustReject(t, obj, []string{`The ListenerSet "` + name + `" is invalid`, curveError + detail})
		mustNotExist(t, name)
	})
}

// wouldDeny reads the webhook's listenerset_webhook_would_deny_total for
// the ecdhCurves option.
func wouldDeny(t *testing.T) float64 {
	t.Helper()
	return seriesValue(t, admission.WouldDenyMetric+`{field="spec.listeners[*].tls.options[*]",reason="FieldValueNotSupported",source="flag"}`)
}

// TestAddedNames: with --add-names=ecdhCurves=X448 the webhook admits a
// listener with the curve X448, and still denies an unknown curve beside
// it, naming X448 among the supported values; restarted without the
// setting, it denies X448 again.
func TestAddedNames(t *testing.T) {
	requireCluster(t)
	const name = "added-names"
	listener := func(curves string) map[string]any {
		l := httpsListener("tls", 8443, "web-tls-cert")
		l["tls"].(map[string]any)["options"] = map[string]any{"microgateway.airlock.com/ecdhCurves": curves}
		return listenerSet(name, l)
	}
	const curveError = `spec.listeners[0].tls.options[microgateway.airlock.com/ecdhCurves]: `
	t.Cleanup(func() { deleteLS(t, name) })

	t.Run("an added curve is admitted, an unknown one denied", func(t *testing.T) {
		restartWebhook(t, webhookSettings{addNames: []string{"ecdhCurves=X448"}})
		mustReject(t, listener("X448,X449"), []string{`The ListenerSet "` + name + `" is invalid`,
			curveError + `Unsupported value: "X449": supported values: "X25519MLKEM768", "X25519", "P-256", "P-384", "P-521", "X448"`})
		r := mustApply(t, listener("X448,X25519"))
		if !strings.Contains(r.Stdout, "listenerset.gateway.networking.k8s.io/"+name+" created") {
			t.Errorf("kubectl printed:\n%s", r.Output())
		}
	})
	deleteLS(t, name)
	t.Run("without the setting it is denied", func(t *testing.T) {
		mustReject(t, listener("X448,X25519"), []string{curveError + `Unsupported value: "X448": supported values: "X25519MLKEM768", "X25519", "P-256", "P-384", "P-521"`})
		mustNotExist(t, name)
	})
}
