package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// auditPolicy records ListenerSet requests at level Metadata, which keeps
// the admission webhooks' audit annotations, and nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  resources:
  - group: gateway.networking.k8s.io
    resources: [listenersets]
- level: None
`

// auditArgs are the kube-apiserver flags that write its audit log to
// auditLog, in a directory of its own.
func auditArgs() (map[string][]string, error) {
	dir, err := os.MkdirTemp("", "e2e-audit-")
	if err != nil {
		return nil, err
	}
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	auditLog = filepath.Join(dir, "audit.log")
	return map[string][]string{"audit-policy-file": {policy}, "audit-log-path": {auditLog}}, nil
}

// TestAuditEventCarriesCodes: kube-apiserver records a denial's codes
// (docs/codes.md) in the request's audit event, under the validating
// webhook's name, as an audit pipeline reads them, while kubectl prints
// the denial as before.
func TestAuditEventCarriesCodes(t *testing.T) {
	requireCluster(t)
	const name = "audit-codes"
	// Errors only the webhook finds: the CRD admits both.
	curves := httpsListener("tls", 8443, "web-tls-cert")
	curves["tls"].(map[string]any)["options"] = map[string]any{"microgateway.airlock.com/ecdhCurves": "X448"}
	tcp := httpListener("tcp", 9000)
	tcp["protocol"] = "TCP"
	obj := listenerSet(name, curves, tcp)
	t.Cleanup(func() { deleteLS(t, name) })
	mustReject(t, obj, []string{`The ListenerSet "` + name + `" is invalid`,
		`spec.listeners[0].tls.options[microgateway.airlock.com/ecdhCurves]: Unsupported value: "X448"`,
		`spec.listeners[1].protocol: Unsupported value: "TCP"`})

	key := admission.ValidatingWebhookName + "/" + admission.AuditCodesKey
	want := string(validation.CodeProtocol) + "," + string(validation.CodeUnsupportedOptionItem)
	// The log backend writes an event as its request completes; wait for
	// the line rather than for a time.
	var got string
	for deadline := time.Now().Add(time.Minute); got == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		got = auditAnnotation(t, name, key)
	}
	if got != want {
		t.Fatalf("audit annotation %s of the denial of %s: %q, want %q", key, name, got, want)
	}
}

// auditAnnotation is annotation key of the last audit event of a create of
// ListenerSet name, "" when there is none yet.
func auditAnnotation(t *testing.T, name, key string) string {
	t.Helper()
	f, err := os.Open(auditLog)
	if os.IsNotExist(err) {
		return ""
	} else if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got string
	scan := bufio.NewScanner(f)
	scan.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for scan.Scan() {
		var event struct {
			Verb      string `json:"verb"`
			ObjectRef struct {
				Resource, Name string
			} `json:"objectRef"`
			Annotations map[string]string `json:"annotations"`
		}
		if json.Unmarshal(scan.Bytes(), &event) != nil || event.Verb != "create" ||
			event.ObjectRef.Resource != "listenersets" || event.ObjectRef.Name != name {
			continue
		}
		if v, ok := event.Annotations[key]; ok {
			got = v
		}
	}
	if err := scan.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}
