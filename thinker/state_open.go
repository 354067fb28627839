package thinker

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/state"
)

// UseEmbeddingsIn is UseEmbeddings with the vectors cached in the state
// in stateDir, opened here; when it cannot be opened, the search embeds
// without a cache. It returns a function that closes the state.
func (o *Options) UseEmbeddingsIn(cfg llm.Config, stateDir string) func() {
	if cfg.EmbeddingsModel == "" {
		return func() {}
	}
	st, _, err := project.Open(stateDir, state.Options{})
	if err != nil {
		o.UseEmbeddings(cfg, nil)
		return func() {}
	}
	o.UseEmbeddings(cfg, st)
	return func() { st.Close() }
}

// SearchEmbeddings switches ix to embeddings when FLOWCTL_EMBEDDINGS_MODEL
// is set (lookup reads the environment), with the vectors cached in the
// state in stateDir (blocks search). What keeps it from them is said on
// w, and leaves ix with text ranking. The returned function closes the
// state.
func SearchEmbeddings(ctx context.Context, w io.Writer, ix *index.Index, lookup func(string) (string, bool), stateDir string) func() {
	model, _ := lookup(llm.EnvEmbeddingsModel)
	if model = strings.TrimSpace(model); model == "" {
		return func() {}
	}
	cfg, err := llm.ConfigFromEnv(lookup)
	if err != nil {
		WarnNoEmbeddings(w, err)
		return func() {}
	}
	if cfg.APIKey == "" && cfg.BaseURL == "" {
		WarnNoEmbeddings(w, fmt.Errorf("%s is set, but no model server is configured: set %s, or %s for a local OpenAI-compatible server",
			llm.EnvEmbeddingsModel, llm.EnvAPIKey, llm.EnvBaseURL))
		return func() {}
	}
	var cache index.VectorCache
	st, _, err := project.Open(stateDir, state.Options{})
	if err != nil {
		fmt.Fprintf(w, "Warning: embedding vectors are not cached: opening the state in %s: %s\n", stateDir, lang.ErrorSummary(project.OpenDiagnostics(stateDir, err)))
	} else {
		cache = st.Vectors(model)
	}
	if err := ix.UseEmbeddings(ctx, llm.NewEmbedder(cfg, model), cache, model); err != nil {
		WarnNoEmbeddings(w, err)
	}
	if st == nil {
		return func() {}
	}
	return func() { st.Close() }
}

// WarnNoEmbeddings says that a search ranks by text alone, and why.
func WarnNoEmbeddings(w io.Writer, err error) {
	fmt.Fprintf(w, "Warning: searching by text alone; embeddings are not available: %s\n", err)
}

// UsePatternsIn gives the thinker the patterns recorded in the state in
// stateDir, when that is a directory that exists, and returns the state,
// open; nil when there is none or it cannot be opened.
func (o *Options) UsePatternsIn(stateDir string) *state.Store {
	if state.IsURL(stateDir) {
		return nil
	}
	if _, err := os.Stat(stateDir); err != nil {
		return nil
	}
	st, _, err := project.Open(stateDir, state.Options{})
	if err != nil {
		return nil
	}
	o.Patterns = StatePatterns(st)
	return st
}

// RememberFlow records the flow think wrote and validated (res.File) as a
// pattern of the project's state in stateDir, for later intents to start
// from, and notes the pattern it started from as used. patterns is that
// state when UsePatternsIn opened it, or nil: it is opened (created) then.
func RememberFlow(patterns *state.Store, stateDir string, res *Result, intent string, registries []string) error {
	if patterns == nil {
		st, _, err := project.Open(stateDir, state.Options{})
		if err != nil {
			return err
		}
		defer st.Close()
		patterns = st
	}
	if err := RecordPattern(patterns, res.File, intent, state.PatternThink, registries); err != nil {
		return err
	}
	if res.Pattern != "" {
		patterns.NotePatternUsed(res.Pattern)
	}
	return nil
}
