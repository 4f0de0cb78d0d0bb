package clusterview

import (
	"errors"
	"io"
	"testing"

	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestTransformKeepsOnlyWhatTheRulesRead: nothing of a Secret but its
// identity is cached (kubectl's last-applied annotation holds its data), a
// Namespace keeps its labels, and the Gateway API kinds lose managedFields
// and the last-applied manifest but keep the rest.
func TestTransformKeepsOnlyWhatTheRulesRead(t *testing.T) {
	meta := metav1.ObjectMeta{
		Name: "x", UID: "u", ResourceVersion: "7",
		Labels:        map[string]string{"team": "a"},
		Annotations:   map[string]string{lastApplied: `{"data":{"tls.key":"c2VjcmV0"}}`, "note": "kept on Gateways"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		Finalizers:    []string{"f"},
	}

	secret := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: *meta.DeepCopy()}
	secret.Namespace = "certs"
	got, err := transform(secret)
	assert.NoError(t, err)
	assert.Equal(t, &metav1.PartialObjectMetadata{TypeMeta: secret.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Namespace: "certs", Name: "x", UID: "u", ResourceVersion: "7",
	}}, got)

	ns := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: *meta.DeepCopy()}
	got, err = transform(ns)
	assert.NoError(t, err)
	assert.Equal(t, &metav1.PartialObjectMetadata{TypeMeta: ns.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Name: "x", UID: "u", ResourceVersion: "7", Labels: map[string]string{"team": "a"},
	}}, got)

	gw := &gwv1.Gateway{ObjectMeta: *meta.DeepCopy(), Spec: gwv1.GatewaySpec{GatewayClassName: "airlock"}}
	got, err = transform(gw)
	assert.NoError(t, err)
	want := &gwv1.Gateway{ObjectMeta: *meta.DeepCopy(), Spec: gwv1.GatewaySpec{GatewayClassName: "airlock"}}
	want.ManagedFields = nil
	want.Annotations = map[string]string{"note": "kept on Gateways"}
	assert.Equal(t, want, got)

	again, err := transform(got)
	assert.NoError(t, err)
	assert.Equal(t, want, again, "idempotent")
}

// TestWatchErrorsThatMatter: a watch that ends or expires is routine (debug
// level at most); a forbidden list, as with missing RBAC, is an error.
func TestWatchErrorsThatMatter(t *testing.T) {
	var lines []string
	log := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 0})
	gone := apierrors.NewResourceExpired("too old resource version")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New("RBAC: no list"))
	for _, err := range []error{io.EOF, io.ErrUnexpectedEOF, gone} {
		watchError(log, "*v1.PartialObjectMetadata", err)
	}
	assert.Empty(t, lines, "routine watch ends are not logged at the default level")
	watchError(log, "*v1.PartialObjectMetadata", forbidden)
	if assert.Len(t, lines, 1) {
		assert.Contains(t, lines[0], "forbidden")
		assert.Contains(t, lines[0], `"type"="*v1.PartialObjectMetadata"`)
	}
}
