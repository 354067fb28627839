// Package retrieval runs the retrieval blocks (docs/retrieval.md):
// document, chunk, vector_upsert, vector_delete and vector_search. Their
// definitions are package blocks' built-ins, and the collections they
// use are the state's (runtime/state); embed runs on the executor of llm
// blocks (blocks/llm).
package retrieval

import (
	"os"

	"github.com/flowctl/flowctl/blocks"
)

// With adds the executors of the retrieval blocks to builtins (those of
// blocks.BuiltinExecutors) and returns it.
func With(builtins map[string]blocks.Executor) map[string]blocks.Executor {
	builtins["document"] = documentExecutor{}
	builtins["chunk"] = chunkExecutor{}
	builtins["vector_upsert"] = blocks.ExecutorFunc(execVectorUpsert)
	builtins["vector_delete"] = blocks.ExecutorFunc(execVectorDelete)
	builtins["vector_search"] = vectorSearchExecutor{}
	return builtins
}

// unwrap is the error of a path error without its path, which the
// message gives already.
func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
