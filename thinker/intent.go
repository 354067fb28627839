package thinker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/lang"
)

// clarify asks whether the intent is specific enough and returns it as
// the model restates it. On a terminal (Options.Answer) it asks the
// user the model's questions, for at most MaxClarifyRounds requests, and
// then goes on with the intent as understood; without one, an intent
// that needs clarifying fails with the model's question.
func (r *run) clarify(ctx context.Context, intent string) (string, error) {
	msgs := []llm.Message{user(message(prop("intent", intent)))}
	for round := 1; ; round++ {
		r.stage(StageClarify, round, "", "", "")
		var reply clarifyReply
		raw, _, err := r.ask(ctx, request{schema: clarifySchema, system: clarifySystem, messages: msgs, try: round}, &reply)
		if err != nil {
			return "", err
		}
		understood := strings.TrimSpace(reply.RefinedIntent)
		if understood == "" {
			understood = intent
		}
		question := strings.TrimSpace(reply.Question)
		if reply.Ready || question == "" || round == MaxClarifyRounds {
			return understood, nil
		}
		if r.opts.Answer == nil {
			return "", stageErr(StageClarify, nil,
				"the intent needs clarifying; the model asks: %s\nSay it in the intent, run flowctl think on a terminal to be asked, or pass --no-clarify to go on as it is", question)
		}
		answer, err := r.opts.Answer(ctx, question)
		if err != nil {
			return "", stageErr(StageClarify, err, "reading the answer: %s", err)
		}
		answer = strings.TrimSpace(answer)
		if answer == "" {
			return understood, nil
		}
		msgs = append(msgs, assistant(raw), user(message(prop("answer", answer))))
	}
}

// maxCatalog is how many available blocks the decompose request lists;
// a larger registry is narrowed to the blocks the intent finds.
const maxCatalog = 60

// decompose asks which blocks the intent needs. Blocks with problems
// (names, types) are sent back with the problems, at most
// MaxDecomposeTries times in all.
func (r *run) decompose(ctx context.Context, intent, failed string) ([]BlockSpec, error) {
	var catalog []obj
	for _, b := range r.catalog(intent) {
		catalog = append(catalog, obj{
			{Key: "name", Value: b.Name}, {Key: "description", Value: b.Description},
			{Key: "inputs", Value: fieldSummary(b.Inputs)}, {Key: "outputs", Value: fieldSummary(b.Outputs)},
		})
	}
	fields := []member{prop("intent", intent), prop("available_blocks", catalog)}
	if r.base != nil {
		fields = append(fields,
			prop("current_flow", string(r.base.src)),
			prop("edit", "The intent changes the current flow. List only the blocks the change needs that neither the current flow nor the available blocks have; an empty list when they suffice."))
	}
	if failed != "" {
		fields = append(fields, prop("replan", "A plan before this one failed: "+failed+
			". Plan again: split that block into smaller ones, or do its work with the available blocks."))
	}
	msgs := []llm.Message{user(message(fields...))}
	var problems []string
	for try := 1; try <= MaxDecomposeTries; try++ {
		reason := ""
		switch {
		case len(problems) > 0:
			reason = "the blocks cannot be used: " + strings.Join(problems, "; ")
		case failed != "" && try == 1:
			reason = "planning again: " + failed
		}
		r.stage(StageDecompose, try, "", intent, reason)
		var reply decomposeReply
		raw, unknown, err := r.ask(ctx, request{schema: decomposeSchemaFor(r.opts.Runtime), system: decomposeSystemFor(r.opts.Runtime), messages: msgs, try: try}, &reply)
		if err != nil {
			return nil, err
		}
		problems = checkSpecs(reply.Blocks)
		if r.base != nil && len(reply.Blocks) == 0 {
			problems = nil // an edit may need no new block
		}
		if len(unknown) > 0 {
			problems = append(problems, unknownFields(unknown))
		}
		if len(problems) == 0 {
			r.emit(DecomposeBlocks{Time: time.Now(), Blocks: reply.Blocks})
			return reply.Blocks, nil
		}
		msgs = append(msgs, assistant(raw), user("The blocks cannot be used: "+strings.Join(problems, "; ")+". Reply with the whole corrected list."))
	}
	return nil, stageErr(StageDecompose, nil, "the blocks still have problems after %d tries: %s", MaxDecomposeTries, strings.Join(problems, "; "))
}

// catalog is the registry's blocks as the decompose request lists them.
func (r *run) catalog(intent string) []*blocks.Block {
	all := r.reg.All()
	if len(all) <= maxCatalog {
		return all
	}
	var out []*blocks.Block
	for _, h := range index.New(all).Search(intent, maxCatalog) {
		out = append(out, h.Block)
	}
	return out
}

// checkSpecs checks the blocks of a decompose reply and parses their
// types; it returns the problems.
func checkSpecs(specs []BlockSpec) []string {
	if len(specs) == 0 {
		return []string{"the list of blocks is empty; a flow needs at least one"}
	}
	var problems []string
	ids := map[string]bool{}
	for i := range specs {
		s := &specs[i]
		switch {
		case !lang.ValidName(s.ID):
			problems = append(problems, fmt.Sprintf("the id %q is not a snake_case name", s.ID))
		case ids[s.ID]:
			problems = append(problems, fmt.Sprintf("the id %q is used twice", s.ID))
		}
		ids[s.ID] = true
		problems = append(problems, checkFields(s.ID, "input", s.Inputs)...)
		problems = append(problems, checkFields(s.ID, "output", s.Outputs)...)
		if len(s.Outputs) == 0 {
			problems = append(problems, fmt.Sprintf("block %q has no outputs", s.ID))
		}
	}
	return problems
}

// checkFields checks the names and types of a block's fields and parses
// the types into the fields.
func checkFields(block, kind string, fields []FieldSpec) []string {
	var problems []string
	names := map[string]bool{}
	for i := range fields {
		f := &fields[i]
		switch {
		case !lang.ValidName(f.Name):
			problems = append(problems, fmt.Sprintf("block %q: the %s name %q is not a snake_case name", block, kind, f.Name))
		case names[f.Name]:
			problems = append(problems, fmt.Sprintf("block %q has two %ss named %q", block, kind, f.Name))
		case kind == "input" && lang.IsMetaArgument(f.Name):
			problems = append(problems, fmt.Sprintf("block %q: the input name %q is reserved for steps (%s)", block, f.Name, strings.Join(lang.MetaArguments, ", ")))
		}
		names[f.Name] = true
		ty, diags := lang.ParseType(f.Type, "type")
		if diags.HasErrors() {
			problems = append(problems, fmt.Sprintf("block %q: the %s %q has the type %q, which is not an HCL type expression (%s)",
				block, kind, f.Name, f.Type, lang.ErrorSentence(diags, false)))
			continue
		}
		f.Parsed = ty
	}
	return problems
}
