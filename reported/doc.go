// Package reported reads what a controller reported of a listener (a
// ListenerSet's status.listeners, a Gateway's status.listeners, and the
// object's own Accepted condition) and compares it with what the merged
// listener list predicts (validation.MergedListeners): the question "why
// is my listener not accepted?" starts where the two differ, or where
// nothing was reported at all.
//
// Predict builds that prediction for a Gateway's listeners (the merged
// list with the sets their own rules refuse Invalid, and each listener's
// attached routes): the listeners command's rows and what the audit
// compares, so that the two cannot differ.
//
// It is pure: the callers (the listeners command, the audit, why) read
// the objects and render the result. A controller's text (reasons,
// messages) is kept as written; renderers escape it.
package reported
