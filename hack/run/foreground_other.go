//go:build !(linux || darwin)

package main

// foreground does nothing here: see foreground_unix.go.
func foreground() (restore func()) { return func() {} }
