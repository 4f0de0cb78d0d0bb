package broken

import "testing"

func TestBroken(t *testing.T) {
	var n int = "not-an-int"
	_ = n
}
