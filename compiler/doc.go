// Package compiler turns a flow file and its registry into a checked,
// typed program: every step resolved to its block, every reference resolved,
// every expression evaluated with unknown values of the declared types and
// checked against its target type, and the steps ordered into a DAG with
// stages and a critical path.
//
// Compilation runs as an ordered list of named passes (decode, resolve,
// types, graph, cycles, stages). A pass reports every problem it finds,
// continuing with placeholder values, and compilation stops after a pass
// that produced errors. Package lang supplies the decoded files and package
// blocks the block kinds; package runtime executes the Program.
package compiler
