package validation_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// readCounter is a Cluster that counts what a verdict reads of the
// ListenerSets: the index reads by key, the sets they return, and the
// reads of a whole Gateway's.
type readCounter struct {
	*incluster.Objects
	reads, sets, whole int
}

func (c *readCounter) ListenerSetsAt(key string) ([]*gwv1.ListenerSet, bool) {
	sets, known := c.Objects.ListenerSetsAt(key)
	c.reads++
	c.sets += len(sets)
	return sets, known
}

func (c *readCounter) ListenerSetsOf(namespace, name string) ([]*gwv1.ListenerSet, bool) {
	c.whole++
	return c.Objects.ListenerSetsOf(namespace, name)
}

// TestOwnersCreateReadsAreFlat: owner 1's create on the shared Gateway
// (BenchmarkOwnersScale's, the load tool's owners shape) makes the same
// index reads with 10 000 sets of 1 000 owners as with none, reads no
// Gateway whole, and of the 10 000 is given only its owner's wildcard set
// (once for each of its two listeners), the one claim that overlaps their
// hostname: its cost does not grow with the Gateway's sets.
func TestOwnersCreateReadsAreFlat(t *testing.T) {
	var reads [2]int
	for k, n := range []int{0, 10000} {
		c := &readCounter{Objects: validationtest.OwnedCluster(n)}
		errs, warnings := validation.Validate(validationtest.NewOwnedSet("new"), nil, validation.Options{Cluster: c, Strict: true})
		require.Empty(t, errs)
		require.Empty(t, warnings)
		assert.Zero(t, c.whole, "%d sets: a Gateway's sets read whole", n)
		wantSets := 0
		if n > validationtest.Owners {
			wantSets = 2 // the owner's wildcard set, for each listener
		}
		assert.Equal(t, wantSets, c.sets, "%d sets: sets read", n)
		reads[k] = c.reads
		t.Logf("%d sets: %d index reads, %d sets read", n, c.reads, c.sets)
	}
	assert.Equal(t, reads[0], reads[1], "index reads at 0 and 10 000 sets")
	// The reads grow with the hostname's labels, not the sets: one label
	// more, a few reads more.
	c := &readCounter{Objects: validationtest.OwnedCluster(10000)}
	validation.Validate(validationtest.NewOwnedSet(fmt.Sprintf("deeper.%s", "new")), nil, validation.Options{Cluster: c, Strict: true})
	assert.Greater(t, c.reads, reads[1])
	assert.LessOrEqual(t, c.reads, reads[1]+4, "one label more")
}
