// Package certs owns where the webhook's serving certificate comes from.
// A Source hands the TLS listener its current certificate on every
// handshake, whatever the mode:
//
//   - ModeDir: tls.crt and tls.key in a directory (a mounted Secret, e.g.
//     cert-manager's), reloaded when they change; a self-signed certificate
//     is generated there for local use when there is none;
//   - ModeSelfBootstrapped: a CA kept in a Secret (cert-manager's
//     DynamicAuthority) signs short-lived certificates, and the caBundle of
//     the webhook's own configurations is kept current (cabundle.go), so a
//     rotation never shows kube-apiserver a certificate it cannot verify.
//
// The certificate modes as installed: docs/serving.md and docs/chart.md.
package certs
