package inflight

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The timeout parameter as kube-apiserver sends it is used; anything else
// it could not have sent falls back to the default, never to more time
// than kube-apiserver allows, nor to an error.
func TestRequestTimeout(t *testing.T) {
	const def = 7 * time.Second
	for _, tc := range []struct {
		query string
		want  time.Duration
	}{
		{"timeout=10s", 10 * time.Second},
		{"timeout=1s", time.Second},
		{"timeout=30s", 30 * time.Second},
		{"timeout=1500ms", 1500 * time.Millisecond},
		{"a=b&timeout=5s", 5 * time.Second},
		{"", def},
		{"timeout=", def},
		{"timeout=10", def},                   // no unit
		{"timeout=ten", def},                  // not a duration
		{"timeout=0s", def},                   // none left
		{"timeout=-5s", def},                  // negative
		{"timeout=31s", def},                  // more than a webhook may have
		{"timeout=1h", def},                   // far more
		{"timeout=9999999999999999999s", def}, // overflows
		{"timeout=5s&timeout=6s", def},        // ambiguous
		{"timeout=%zz", def},                  // not even a query
		{"TIMEOUT=5s", def},                   // names are case-sensitive
	} {
		r := httptest.NewRequest("POST", "/validate?"+tc.query, nil)
		assert.Equal(t, tc.want, requestTimeout(r, def), "?%s", tc.query)
	}
}

func TestMargin(t *testing.T) {
	assert.Equal(t, 200*time.Millisecond, margin(time.Second), "at least 200ms")
	assert.Equal(t, 300*time.Millisecond, margin(3*time.Second))
	assert.Equal(t, time.Second, margin(10*time.Second))
	assert.Equal(t, time.Second, margin(30*time.Second), "at most a second")
}
