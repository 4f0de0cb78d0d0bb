package certs

import (
	"crypto/x509"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/airlock/listenerset-webhook/test/testpki"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// newTestCA makes a CA valid from notBefore for validity.
func newTestCA(t *testing.T, name string, notBefore time.Time, validity time.Duration) *testpki.CA {
	t.Helper()
	return testpki.NewCA(t, testpki.CommonName(name), testpki.Valid(notBefore, validity))
}

func TestDesiredBundle(t *testing.T) {
	grace := 24 * time.Hour
	a := newTestCA(t, "a", t0.Add(-time.Hour), 365*24*time.Hour).Cert
	b := newTestCA(t, "b", t0.Add(-time.Hour), 365*24*time.Hour).Cert
	c := newTestCA(t, "c", t0.Add(-time.Hour), 365*24*time.Hour).Cert
	expired := newTestCA(t, "expired", t0.Add(-48*time.Hour), time.Hour).Cert
	at := t0.Add(-time.Hour).Format(time.RFC3339)

	for _, tc := range []struct {
		name      string
		existing  []*x509.Certificate
		rotatedAt string
		now       time.Time
		want      []*x509.Certificate
		wantAt    string
	}{
		{name: "first injection: the current CA only", want: []*x509.Certificate{a}},
		{name: "up to date: unchanged", existing: []*x509.Certificate{a}, want: []*x509.Certificate{a}},
		{name: "rotation: the previous CA stays, the rotation time is recorded",
			existing: []*x509.Certificate{b}, want: []*x509.Certificate{a, b}, wantAt: t0.Format(time.RFC3339)},
		{name: "rotation again: only the last previous CA stays",
			existing: []*x509.Certificate{b, c}, rotatedAt: at, want: []*x509.Certificate{a, b}, wantAt: t0.Format(time.RFC3339)},
		{name: "within the grace the previous CA stays",
			existing: []*x509.Certificate{a, b}, rotatedAt: at, want: []*x509.Certificate{a, b}, wantAt: at},
		{name: "after the grace the previous CA goes",
			existing: []*x509.Certificate{a, b}, rotatedAt: t0.Add(-grace).Format(time.RFC3339), want: []*x509.Certificate{a}},
		{name: "unknown rotation time: the grace starts now",
			existing: []*x509.Certificate{a, b}, rotatedAt: "yesterday", want: []*x509.Certificate{a, b}, wantAt: t0.Format(time.RFC3339)},
		{name: "an expired previous CA is dropped at once",
			existing: []*x509.Certificate{a, expired}, rotatedAt: at, want: []*x509.Certificate{a}},
		{name: "rotation from an expired CA: nothing to keep",
			existing: []*x509.Certificate{expired}, want: []*x509.Certificate{a}},
		{name: "foreign certificates after the current CA are dropped",
			existing: []*x509.Certificate{a, b, c}, rotatedAt: at, want: []*x509.Certificate{a, b}, wantAt: at},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := tc.now
			if now.IsZero() {
				now = t0
			}
			got, gotAt := desiredBundle(tc.existing, tc.rotatedAt, a, grace, now)
			assert.Equal(t, names(tc.want), names(got))
			assert.Equal(t, tc.wantAt, gotAt)
		})
	}
}

func names(certs []*x509.Certificate) []string {
	var n []string
	for _, c := range certs {
		n = append(n, c.Subject.CommonName)
	}
	return n
}

func TestInjectSetsEveryWebhookAndTheAnnotation(t *testing.T) {
	a := newTestCA(t, "a", t0.Add(-time.Hour), 365*24*time.Hour).Cert
	b := newTestCA(t, "b", t0.Add(-time.Hour), 365*24*time.Hour).Cert
	meta := &metav1.ObjectMeta{}
	one, two := encodeCerts([]*x509.Certificate{b}), []byte("stale")
	cas, changed := inject(meta, []*[]byte{&one, &two}, a, time.Hour, t0)
	assert.True(t, changed)
	assert.Equal(t, []string{"a", "b"}, names(cas))
	assert.Equal(t, encodeCerts(cas), one)
	assert.Equal(t, one, two, "every webhook of the configuration gets the same bundle")
	assert.Equal(t, t0.Format(time.RFC3339), meta.Annotations[CARotatedAtAnnotation])

	_, changed = inject(meta, []*[]byte{&one, &two}, a, time.Hour, t0.Add(time.Minute))
	assert.False(t, changed, "nothing to write when up to date")

	cas, changed = inject(meta, []*[]byte{&one, &two}, a, time.Hour, t0.Add(time.Hour))
	assert.True(t, changed)
	assert.Equal(t, []string{"a"}, names(cas), "previous CA dropped after the grace")
	assert.NotContains(t, meta.Annotations, CARotatedAtAnnotation)
}

func TestTrustedWaitsForEveryBundleAndTheSettleTime(t *testing.T) {
	caA := newTestCA(t, "a", t0.Add(-time.Hour), 365*24*time.Hour)
	caB := newTestCA(t, "b", t0.Add(-time.Hour), 365*24*time.Hour)
	leafValidity := testpki.Valid(t0.Add(-time.Hour), time.Hour)
	leafA, leafB := caA.Issue(t, []string{"x"}, leafValidity).Cert, caB.Issue(t, []string{"x"}, leafValidity).Cert
	now := t0
	in := &caInjector{settle: 2 * time.Second, now: func() time.Time { return now },
		trustedSince: map[[32]byte]time.Time{}, trustedCAs: map[[32]byte]*x509.Certificate{}}

	assert.ErrorContains(t, in.trusted(leafA), "not yet in the caBundle")
	// In the mutating configuration only: not yet.
	in.observe([][]*x509.Certificate{{caA.Cert}, {caB.Cert}}, now)
	assert.ErrorContains(t, in.trusted(leafA), "not yet in the caBundle")
	// In both, but only just.
	in.observe([][]*x509.Certificate{{caA.Cert, caB.Cert}, {caB.Cert, caA.Cert}}, now)
	assert.ErrorContains(t, in.trusted(leafA), "serving it in 2s")
	now = now.Add(2 * time.Second)
	in.observe([][]*x509.Certificate{{caA.Cert, caB.Cert}, {caB.Cert, caA.Cert}}, now)
	assert.NoError(t, in.trusted(leafA), "the first sighting counts, not the last")
	assert.NoError(t, in.trusted(leafB))
	// B removed from one bundle: B's leaf is no longer served.
	in.observe([][]*x509.Certificate{{caA.Cert}, {caB.Cert, caA.Cert}}, now)
	assert.Error(t, in.trusted(leafB))
	assert.NoError(t, in.trusted(leafA))
}

func TestBootstrapOptionsDefaults(t *testing.T) {
	_, err := BootstrapOptions{DNSNames: []string{"x"}}.withDefaults()
	assert.ErrorContains(t, err, "CA Secret")
	_, err = BootstrapOptions{CASecretNamespace: "ns", CASecretName: "ca"}.withDefaults()
	assert.ErrorContains(t, err, "DNS name")
	_, err = BootstrapOptions{CASecretNamespace: "ns", CASecretName: "ca", DNSNames: []string{"x"},
		CADuration: time.Hour, LeafDuration: time.Hour}.withDefaults()
	assert.ErrorContains(t, err, "shorter than CA")
	o, err := BootstrapOptions{CASecretNamespace: "ns", CASecretName: "ca", DNSNames: []string{"x"}}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, DefaultCADuration, o.CADuration)
	assert.Equal(t, DefaultLeafDuration, o.LeafDuration)
	assert.Equal(t, DefaultCASettle, o.CASettle)
}
