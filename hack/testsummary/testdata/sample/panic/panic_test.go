package panic

import "testing"

func TestPanics(t *testing.T) {
	t.Log("said-before-the-panic")
	panic("the-panic-message")
}
