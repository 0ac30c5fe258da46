// Package dialectstore gives the store of an on-disk dialect
// (sessions.Store) the names its dialect states already, so that a
// session's agent is one name whether it is found on disk or read from a
// stream.
package dialectstore

import "github.com/evtool/evtool/dialect"

// Of implements the Agent and Dialect methods of sessions.Store for the
// store whose sessions are read as the dialect D. A store embeds it:
//
//	type Store struct{ dialectstore.Of[Dialect] }
type Of[D dialect.Dialect] struct{}

// Agent implements sessions.Store: the agent that writes D.
func (Of[D]) Agent() string {
	var d D
	return dialect.AgentOf(d)
}

// Dialect implements sessions.Store: D's name.
func (Of[D]) Dialect() string {
	var d D
	return d.Name()
}
