// Package why is the why command: for one ListenerSet, the chain of
// decisions that makes each of its listeners what it is, with what each
// decision read. Whose it is (its parent Gateway, that Gateway's
// GatewayClass and controller, validation.Scope's decision, the class's
// Accepted condition and whether its status lists ListenerSet support);
// whether the Gateway admits it (allowedListeners, the Namespace's labels);
// per listener its place in the merged list, its state, what it conflicts or
// overlaps with, its owner and claims (listing.Build, the rows the listeners
// command prints), its certificate's Secret and ReferenceGrant, the
// HTTPRoutes attached (validation.Attacher) and the status the controller
// reported beside the prediction (reported.Compare); and the HTTPRoutes that
// name the set but attach to none of its listeners.
//
// Read reads, with the caller's client and rights only, what that chain
// needs and no more: gets by name where a name is known, namespaced lists
// where they suffice, and nothing is written. What cannot be read is named
// (Snapshot.Unread) and left unknown in the validation.Objects the rules
// read (a nil list), so that they skip it rather than guess; the rest of the
// chain is still told. A Secret is read to learn its type, and its data is
// dropped as soon as it arrives: nothing of it is kept or printed.
//
// Explain is pure: it turns a Snapshot into an Explanation, which WriteText
// renders for people (every user or controller text through
// findings.Escape) and WriteJSON for machines. Output and exit codes:
// docs/listeners.md.
package why
