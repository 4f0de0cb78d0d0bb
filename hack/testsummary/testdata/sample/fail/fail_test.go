package fail

import "testing"

func TestPasses(t *testing.T) { t.Log("quiet-beside-a-failure") }

func TestFail(t *testing.T) {
	t.Log("parent-log-line")
	t.Run("good", func(t *testing.T) { t.Log("quiet-good-subtest") })
	t.Run("bad", func(t *testing.T) {
		t.Parallel()
		t.Error("bad-subtest-error")
	})
}
