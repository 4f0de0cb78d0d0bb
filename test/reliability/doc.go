// Package reliability holds the reliability tests that need the real server
// binary (cmd/listenerset-webhook, built with go build into a temporary
// directory) running as its own process: hostile requests and leaks
// (hostile_test.go), SIGTERM under load with a second instance sharing it
// (shutdown_test.go), and serving-certificate rotation under load
// (rotation_test.go). They skip under go test -short, and log their figures
// as lines starting with RESULT for docs/reliability.md:
//
//	go test ./test/reliability/ -run 'TestShutdown|TestRotation' -v | grep RESULT
package reliability
