// Package blocks knows the kinds of block a step can use: the built-in
// blocks of the catalog (http, llm, scrape, sql, smtp, imap, file, value,
// sleep and the retrieval blocks) and the user blocks defined in flow files
// and block files, which it checks and gathers into a Registry.
//
// A Block is a typed signature: inputs with types and defaults, outputs with
// types, and how the block treats caching and sensitive values. The package
// lang decodes block definitions from HCL; package compiler looks blocks up
// here to type-check the steps that use them.
package blocks
