package skip

import "testing"

func TestRuns(t *testing.T) {}

func TestSkip(t *testing.T) {
	t.Log("first a log line")
	t.Skip("needs root: run make test-node as root")
}

func TestSkipSub(t *testing.T) {
	t.Run("one", func(t *testing.T) { t.Skipf("needs %s", "npm") })
	t.Run("two", func(t *testing.T) {})
}
