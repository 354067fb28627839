// Package lang reads flowctl's HCL files into a model that keeps every
// source range.
//
// It knows the grammar of flow files (*.flow.hcl) and block files
// (*.block.hcl): the top-level blocks, the meta-arguments of steps, the
// fields of block definitions, type expressions, references and the function
// table. It checks what can be checked within one block (names, literal
// meta-argument values, defaults against their declared types) and nothing
// that needs the whole flow: resolving references, types across steps and the
// dependency graph are the compiler's work. The sibling package blocks turns
// block definitions into typed block kinds, and package compiler turns a
// decoded flow into a checked program.
package lang
