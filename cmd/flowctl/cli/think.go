package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/thinker"
	"github.com/spf13/cobra"
)

func newThinkCommand(s streams) *cobra.Command {
	var out, model, sandbox, logPrompts string
	var registries []string
	var noClarify, force, jsonOut bool
	var maxCalls int
	cmd := &cobra.Command{
		Use:   `think "INTENT"`,
		Short: "Write a flow for an intent with a language model",
		Long: `Think asks a language model to turn an intent into a flow: it clarifies the
intent (on a terminal), decomposes it into blocks, finds the blocks the
registry has, writes and tests the ones it lacks (saved as
blocks/NAME.block.hcl next to the flow), and wires them into a flow that it
compiles, sending the compiler's diagnostics back to the model until the flow
validates. The flow (NAME.flow.hcl, or --out) is written only when it
validates; --force writes the last attempt anyway.

Think needs a model server: OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL
for any OpenAI-compatible server (Ollama, vLLM, …); FLOWCTL_MODEL or --model
names the model. See docs/thinker.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			intent := strings.TrimSpace(args[0])
			switch {
			case intent == "":
				return usagef("the intent is empty; say what the flow should do")
			case out != "" && !lang.IsFlowFile(out):
				return usagef("--out must name a *.flow.hcl file, not %q", out)
			case maxCalls < 1:
				return usagef("--max-calls must be at least 1")
			}
			return runThink(s, thinkArgs{
				intent: intent, out: out, model: model, sandbox: sandbox, logPrompts: logPrompts,
				registries: registries, noClarify: noClarify, force: force, jsonOut: jsonOut, maxCalls: maxCalls,
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "", "the flow file to write (default: ./NAME.flow.hcl, NAME the flow's name)")
	fl.StringArrayVar(&registries, "registry", nil, "a directory of *.block.hcl files to search and use (repeatable)")
	fl.StringVar(&model, "model", "", "the model to ask (default: FLOWCTL_MODEL)")
	fl.BoolVar(&noClarify, "no-clarify", false, "skip the clarify stage: take the intent as it is")
	fl.BoolVar(&force, "force", false, "write the last flow attempt even when it does not validate (exit status 1)")
	fl.BoolVar(&jsonOut, "json", false, "print the thinker's events as JSON lines")
	fl.StringVar(&sandbox, "sandbox", sandboxIsolated, "where the examples of created go and js blocks run: isolated (worker processes) or inprocess")
	fl.IntVar(&maxCalls, "max-calls", thinker.DefaultMaxCalls, "the most model requests the whole run may send")
	fl.StringVar(&logPrompts, "log-prompts", "", "append one JSON line per LLM round trip (request, response, duration, tokens, error) to this file")
	return cmd
}

type thinkArgs struct {
	intent, out, model, sandbox, logPrompts string
	registries                              []string
	noClarify, force, jsonOut               bool
	maxCalls                                int
}

func runThink(s streams, a thinkArgs) error {
	cfg, err := llm.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return usagef("%s", err)
	}
	ex, release, err := executors(execOptions{sandbox: a.sandbox, warnings: s.err})
	if err != nil {
		return err
	}
	defer release()
	logFile, err := openPromptLog(a.logPrompts)
	if err != nil {
		return err
	}
	if logFile != nil {
		defer logFile.Close()
	}
	cfg.LogPrompts = writerOrNil(logFile)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var view thinkView
	if a.jsonOut {
		view = newThinkJSON(s.out)
	} else {
		view = newThinkHuman(s.out, s.err, a.registries)
	}
	modelName := a.model
	if modelName == "" {
		modelName = cfg.Model
	}
	opts := thinker.Options{
		Intent: a.intent, Model: llm.NewExecutor(cfg), ModelName: modelName,
		Out: a.out, Registries: a.registries, Executors: ex,
		NoClarify: a.noClarify, Force: a.force, MaxCalls: a.maxCalls, Observe: view.Event,
	}
	dir := "."
	if a.out != "" {
		dir = filepath.Dir(a.out)
	}
	closeVectors := thinkEmbeddings(&opts, cfg, dir)
	defer closeVectors()
	if isTerminal(s.in) && isTerminal(s.err) {
		opts.Answer = terminalAnswer(s.in, s.err)
	}

	res, err := thinker.Think(ctx, opts)
	view.Close()
	if err == nil {
		return nil
	}
	if !a.jsonOut && res != nil && res.File == "" && len(res.Diagnostics) > 0 {
		writeHumanDiagnostics(s.err, res.Files, res.Diagnostics)
	}
	// The events have reported the failure (with --json, as an error
	// event); the message goes to standard error in both modes.
	fmt.Fprintf(s.err, "Error: %s\n", err)
	return exitError{exitFailure}
}

// thinkEmbeddings adds embeddings to the thinker's registry search when
// FLOWCTL_EMBEDDINGS_MODEL is set, with the vectors cached in the state
// next to the flow. It returns a function that closes the state.
func thinkEmbeddings(opts *thinker.Options, cfg llm.Config, dir string) func() {
	if cfg.EmbeddingsModel == "" {
		return func() {}
	}
	opts.Embedder = llm.NewEmbedder(cfg, cfg.EmbeddingsModel)
	opts.EmbeddingsModel = cfg.EmbeddingsModel
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		// The search embeds without a cache.
		return func() {}
	}
	var cache index.VectorCache = st.Vectors(cfg.EmbeddingsModel)
	opts.VectorCache = cache
	return func() { st.Close() }
}

// terminalAnswer asks a clarifying question on the terminal and reads the
// answer, one line.
func terminalAnswer(in io.Reader, w io.Writer) func(ctx context.Context, question string) (string, error) {
	r := bufio.NewReader(in)
	return func(ctx context.Context, question string) (string, error) {
		fmt.Fprintf(w, "\n%s\n(answer, or press Enter to go on as it is) > ", question)
		answer := make(chan string, 1)
		failed := make(chan error, 1)
		go func() {
			line, err := r.ReadString('\n')
			if err != nil && line == "" {
				failed <- err
				return
			}
			answer <- strings.TrimSpace(line)
		}()
		select {
		case line := <-answer:
			return line, nil
		case err := <-failed:
			if err == io.EOF {
				return "", nil
			}
			return "", err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}
