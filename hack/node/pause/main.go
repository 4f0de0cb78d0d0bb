// Command pause is the node's sandbox (pause) image: the process that holds a
// pod's namespaces while its containers come and go. It waits for SIGINT or
// SIGTERM and exits 0, and reaps the children it inherits as PID 1 of a pod
// that shares its process namespace, as Kubernetes' own pause does. Built
// static (CGO_ENABLED=0) and packed with hack/tools/ociimage by
// hack/node/setup.sh, since no registry can be reached for the real one.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
