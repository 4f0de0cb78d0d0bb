package pass

import "testing"

func TestPass(t *testing.T) {
	t.Log("quiet-when-passing")
	t.Run("sub", func(t *testing.T) { t.Log("quiet-subtest") })
}
