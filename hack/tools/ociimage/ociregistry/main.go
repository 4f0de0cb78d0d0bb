// Command registry serves go-containerregistry's registry (blobs in memory)
// over TLS on a loopback address, for the tests that push and pull as a user
// does (test/chart TestNode/InstallFromRegistry: make publish, helm, cosign and
// the node's containerd). It is a test's process, like kube-apiserver: it
// writes its address to -addr-file once it listens, and one line per
// request to standard error: the method, the path, the status and the
// client's User-Agent, so that a test can tell who fetched what.
//
//	registry -cert tls.crt -key tls.key -addr-file addr
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "registry:", err)
		os.Exit(1)
	}
}

func run() error {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on; loopback only")
	cert := flag.String("cert", "", "PEM serving certificate (required)")
	key := flag.String("key", "", "PEM key of -cert (required)")
	addrFile := flag.String("addr-file", "", "file to write the address listened on to, once it listens")
	flag.Parse()
	if *cert == "" || *key == "" {
		return errors.New("-cert and -key are required: the registry serves TLS only")
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-listen %s: a loopback address only", *listen)
	}
	pair, err := tls.LoadX509KeyPair(*cert, *key)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(l.Addr().String()), 0o644); err != nil {
			return err
		}
	}
	// The registry's own log says less than a request line (no status on
	// success, no client): this one replaces it.
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	// HTTP/1.1 only: the registry's handlers hold one lock while they read an
	// upload, and over HTTP/2 the connection's flow-control window, filled by
	// uploads waiting for that lock, starved the one holding it (a push of
	// the release's two platforms hung).
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	srv := &http.Server{
		Protocols:         &protocols,
		Handler:           logRequests(reg),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(os.Stderr, "registry: ", 0),
	}
	return srv.ServeTLS(l, "", "")
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func logRequests(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		fmt.Fprintf(os.Stderr, "%s %s %d %q\n", r.Method, r.URL.Path, sw.status, r.UserAgent())
	})
}
