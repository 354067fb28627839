// Package thinkevent holds what the thinker reports and returns, and
// nothing that thinks: its events (Event and its types, from StageStarted
// to Complete, Proposed or Failed, and explain's Explained and
// FixChecked), the stages' names, the blocks a decompose stage asks for
// (BlockSpec), the change an edit makes (Change), what a command's model
// requests used (Usage), and explain's result and a fix's evidence.
//
// Package thinker reports these and keeps aliases of their names
// (thinker.Event is thinkevent.Event); code that only renders the
// thinker's work — the CLI's views — imports this package alone. It is
// not named event so that a file or package that renders a run's events
// (package runtime/event) as well reads without renaming either. It
// imports nothing that executes: blocks for a request's token usage (a
// test keeps it so).
package thinkevent
