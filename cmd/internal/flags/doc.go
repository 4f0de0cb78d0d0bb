// Package flags holds the command-line flag types both binaries take, the
// server (cmd/listenerset-webhook, package flag) and the kubectl plugin
// (cmd/kubectl-listenerset, pflag): the scope flags, the enum flags built
// from one helper (Enum) and the usage texts, so that a flag the two share
// has one name, default, help and check.
//
// Layering: flags imports validation for the values it sets; nothing but
// the commands imports it (an internal package of cmd/).
package flags
