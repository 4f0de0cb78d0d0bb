// Package reported reads what a controller reported of a listener (a
// ListenerSet's status.listeners, a Gateway's status.listeners, and the
// object's own Accepted condition) and compares it with what the merged
// listener list predicts (validation.MergedListeners): the question "why
// is my listener not accepted?" starts where the two differ, or where
// nothing was reported at all.
//
// It is pure: the callers (the listeners command, the audit, why) read
// the objects and render the result. A controller's text (reasons,
// messages) is kept as written; renderers escape it.
package reported
