// Package blocktest runs the examples of block definitions as tests.
//
// An `example` in a block definition gives inputs and the outputs they must
// produce (docs/design.md, "Blocks"). Run calls the block once per example through
// the same executors that run steps (package blocks maps a block to its
// executor; the sandboxes in blocks/sandbox run go and js code), with the
// inputs converted as the runtime converts a step's arguments, and compares
// the outputs the example gives with what the block returned. A mismatch is
// reported as a diff of the differing fields, each with its path.
//
// The command `flowctl test` runs it over the blocks of files. It needs
// only a Block and executors, so that a block built in memory (as the
// thinker builds the blocks it creates) can be checked before it is
// saved. The package imports only blocks, lang and libraries.
package blocktest
