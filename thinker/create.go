package thinker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/blocktest"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/hashicorp/hcl/v2"
)

// llmNote is what BlockCreated says of an llm block.
const llmNote = "llm blocks are checked (definition, prompt template, example fields) but their examples are not run: a model's reply is not deterministic"

// create asks for a missing block until one passes its checks and its
// example, at most MaxCreateTries times, sending each failure back to
// the model. The block that passes is written to blocks/NAME.block.hcl
// next to the flow and added to the registry.
func (r *run) create(ctx context.Context, intent string, spec BlockSpec) (*blocks.Block, error) {
	name := r.blockName(spec.ID)
	path := filepath.Join(r.dir, "blocks", name+".block.hcl")
	write := path
	if r.stageDir != "" {
		write = filepath.Join(r.stageDir, name+".block.hcl") // proposed, not written
	}
	schema := createSchema(spec, r.opts.AllowPackages)
	system := createSystem
	if r.opts.AllowPackages {
		system += packagesNote
	}
	msgs := []llm.Message{user(message(
		prop("intent", intent),
		prop("name", name),
		prop("specification", specInfo(spec)),
	))}
	var last string
	for try := 1; try <= MaxCreateTries; try++ {
		r.stage(StageCreateBlock, try, spec.ID, "", last)
		r.emit(CreatingBlock{Time: time.Now(), Block: spec.ID, Name: name, Runtime: spec.Runtime, Try: try})
		var reply createReply
		raw, unknown, err := r.ask(ctx, request{schema: schema, system: system, messages: msgs, try: try, block: spec.ID}, &reply)
		if err != nil {
			return nil, err
		}
		c := r.checkBlock(ctx, spec, name, path, &reply, try, unknown)
		if c.feedback == "" {
			if err := writeFile(write, c.src); err != nil {
				return nil, stageErr(StageCreateBlock, err, "writing block %q: %s", name, err)
			}
			if d := r.reg.AddDefs(c.defs); d.HasErrors() {
				return nil, stageErr(StageCreateBlock, nil, "adding block %q to the registry: %s", name, lang.ErrorSentence(d, false))
			}
			if r.stageDir != "" {
				r.staged = append(r.staged, ProposedFile{Path: path, Content: c.src})
			} else {
				r.res.BlockFiles = append(r.res.BlockFiles, path)
			}
			created := BlockCreated{Time: time.Now(), Block: spec.ID, Name: name, Runtime: c.block.Runtime, File: path, Tries: try, Tested: true,
				Staged: r.stageDir != ""}
			switch {
			case c.block.Runtime == lang.RuntimeLLM:
				created.Tested, created.Note = false, llmNote
			case c.untested != "":
				created.Tested, created.Note = false, "its example was not run: "+c.untested
			}
			r.emit(created)
			return c.block, nil
		}
		last = c.problem
		msgs = append(msgs, assistant(raw), user(c.feedback))
		if ctx.Err() != nil {
			return nil, stageErr(StageCreateBlock, ctx.Err(), "cancelled")
		}
	}
	return nil, stageErr(StageCreateBlock, errNotWritten, "block %q failed its checks %d times; the last problem: %s", name, MaxCreateTries, last)
}

// errNotWritten is the error of a block that failed all its tries, after
// which the run plans again once.
var errNotWritten = errors.New("the block could not be written")

// checked is the outcome of one try of a block: the block file and the
// block when it passed, else what to tell the model (feedback) and the
// user (problem).
type checked struct {
	src      []byte
	defs     []*lang.BlockDef
	block    *blocks.Block
	feedback string
	problem  string
	// untested says why the example of a block that passed its checks
	// was not run.
	untested string
}

// checkBlock renders a create_block reply as a block file, parses it back
// and checks it as validate does (definition, example fields, code
// compilation), then runs its example in the sandbox unless it is an llm
// block. Fields of the reply the stage does not have (unknown) fail the
// check, so that the model hears they were left out. It reports the
// outcome as events.
func (r *run) checkBlock(ctx context.Context, spec BlockSpec, name, path string, reply *createReply, try int, unknown []string) checked {
	c := checked{}
	src, diags := renderBlock(name, reply)
	diags = append(append(diags, packagesRefused(reply, r.opts.AllowPackages)...), unknownDiags(unknown)...)
	c.src = src
	parser := lang.NewParser()
	if !diags.HasErrors() {
		f, d := parser.ParseSource(src, path)
		diags = append(diags, d...)
		if !d.HasErrors() {
			defs, d := lang.DecodeBlockFile(f)
			diags = append(diags, d...)
			c.defs = defs
			if !d.HasErrors() && len(defs) == 1 {
				b, d := blocks.FromDef(defs[0])
				diags = append(diags, d...)
				if !d.HasErrors() {
					diags = append(diags, fitsSpec(spec, b)...)
					diags = append(diags, compiler.CheckCode(defs, "")...)
				}
				c.block = b
			}
		}
	}
	if c.block == nil && !diags.HasErrors() {
		diags = problem("Invalid block file", "The block file made from the reply does not hold exactly one block definition.")
	}
	// What validate only warns of, in a block a person wrote, is an error
	// in one the thinker writes: the block would not do its job.
	for _, d := range diags {
		if d.Summary == lang.PromptIgnoresInputs {
			d.Severity = hcl.DiagError
		}
	}
	if !diags.HasErrors() {
		if why := trivialExample(reply.Example.Input, reply.Example.Output); why != "" {
			diags = problem("Trivial example", "The example %s, so it would pass whatever the block does: give an input the block must change and the output it must give for it.", why)
		}
	}
	diags = compiler.Normalize(diags)
	if diags.HasErrors() {
		files := parser.Files()
		c.problem = lang.ErrorSentence(diags, false)
		c.feedback = checkFeedback(path, src, files, diags)
		r.emit(BlockTestFailed{
			Time: time.Now(), Block: spec.ID, Name: name, Try: try, Phase: PhaseCheck,
			Error: c.problem, Diagnostics: diags, Files: files,
		})
		return c
	}
	if c.block.Runtime == lang.RuntimeLLM {
		return c
	}
	// The example is the model's code: it runs only confined, where it
	// reaches no host, file or secret; and only with its packages, which
	// flowctl lock pins and apply installs.
	if why := unconfinableCode(c.block.Def, ""); why != "" {
		c.untested = why
		return c
	}
	if len(c.block.Def.Requirements) > 0 {
		c.untested = "its requirements are not locked yet (run flowctl lock, then flowctl test)"
		return c
	}
	results := blocktest.Run(ctx, c.block, r.opts.Executors, blocktest.Options{Dir: r.dir, Timeout: r.opts.ExampleTimeout})
	var took time.Duration
	for _, res := range results {
		took += res.Duration
		if res.Status == blocktest.StatusPassed {
			continue
		}
		c.problem = res.Error
		c.feedback = exampleFeedback(res)
		r.emit(BlockTestFailed{
			Time: time.Now(), Block: spec.ID, Name: name, Try: try, Phase: PhaseExample,
			Error: res.Error, Diff: res.Diff,
		})
		return c
	}
	if len(results) == 0 {
		c.problem = "the block has no example"
		c.feedback = "The block has no example; give one whose outputs are certain."
		r.emit(BlockTestFailed{Time: time.Now(), Block: spec.ID, Name: name, Try: try, Phase: PhaseExample, Error: c.problem})
		return c
	}
	r.emit(BlockTestPassed{Time: time.Now(), Block: spec.ID, Name: name, Try: try, Duration: took})
	return c
}

// fitsSpec checks that a created block is the block its specification
// asks for: the same runtime, unless the specification leaves it open
// (empty), and inputs and outputs that index.Compatible accepts for the
// specification's, as the search would for a registry block. A block that
// does not fit would leave the flow without what decompose planned, and
// an llm block in place of a go or js one would skip the example run.
func fitsSpec(spec BlockSpec, b *blocks.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	def := b.Def
	if spec.Runtime != "" && b.Runtime != spec.Runtime {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Wrong runtime",
			Detail: fmt.Sprintf("The specification asks for a block with runtime %q, but this block's runtime is %q. Write the block with runtime %q.",
				spec.Runtime, b.Runtime, spec.Runtime),
			Subject: def.RuntimeRange.Ptr(),
		})
	}
	if ok, why := index.Compatible(b, ports(spec.Inputs), ports(spec.Outputs)); !ok {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Block does not fit its specification",
			Detail: fmt.Sprintf("The block's inputs and outputs must be those of its specification (inputs: %s; outputs: %s), but %s. Keep the names and types the specification gives.",
				fieldList(spec.Inputs), fieldList(spec.Outputs), why),
			Subject: def.NameRange.Ptr(),
		})
	}
	return diags
}

// fieldList renders a specification's fields as "name type, …".
func fieldList(fs []FieldSpec) string {
	if len(fs) == 0 {
		return "none"
	}
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name + " " + f.Type
	}
	return strings.Join(out, ", ")
}

// checkFeedback tells the model why the block file made from its reply
// does not validate: the file and the diagnostics as validate --json
// prints them.
func checkFeedback(path string, src []byte, files map[string]*hcl.File, diags hcl.Diagnostics) string {
	return message(
		prop("problem", "The block file made from your reply does not pass its checks: it must validate and fit its specification. Fix every error and reply with the whole corrected block."),
		prop("block_file", path),
		prop("block", string(src)),
		prop("diagnostics", diagjson.New(files, diags)),
	)
}

// exampleFeedback tells the model how the block's example failed.
func exampleFeedback(res blocktest.Result) string {
	fields := []member{
		prop("problem", "The block's example failed when it was run: "+res.Error+". Fix the code, or the example if its expected outputs are wrong, and reply with the whole corrected block."),
		prop("error", res.Error),
	}
	if res.Diff != "" {
		fields = append(fields, prop("diff", "- the example's expected output, + what the block returned:\n"+res.Diff))
	}
	if j, ok := jsonOf(res.Expected); ok {
		fields = append(fields, prop("expected", json.RawMessage(j)))
	}
	if j, ok := jsonOf(res.Actual); ok {
		fields = append(fields, prop("actual", json.RawMessage(j)))
	}
	return message(fields...)
}

// blockName is the name of a block created for the required block id: id,
// or id_2, id_3, … when the registry or a block file already has it.
func (r *run) blockName(id string) string {
	for n := 1; ; n++ {
		name := id
		if n > 1 {
			name = fmt.Sprintf("%s_%d", id, n)
		}
		if r.reg.Lookup(name) != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(r.dir, "blocks", name+".block.hcl")); err == nil {
			continue
		}
		return name
	}
}

// writeFile writes a file atomically: to a temporary file in the same
// directory, renamed over the target, so that no reader sees it half
// written.
func writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, nothing is there
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// trivialExample says why an example proves nothing, or "": its output
// is its input, or it is empty while the input is not.
func trivialExample(input, output json.RawMessage) string {
	var in, out map[string]any
	if json.Unmarshal(input, &in) != nil || json.Unmarshal(output, &out) != nil {
		return "" // reported as invalid elsewhere
	}
	if len(out) > 0 && reflect.DeepEqual(in, out) {
		return "gives its input back as the output"
	}
	if !isEmptyJSON(in) && isEmptyJSON(out) {
		return "has an empty output for an input that is not"
	}
	return ""
}

// isEmptyJSON reports whether a JSON value holds nothing: null, "", [],
// {}, or an object or array of only such values.
func isEmptyJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		for _, e := range v {
			if !isEmptyJSON(e) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range v {
			if !isEmptyJSON(e) {
				return false
			}
		}
		return true
	}
	return false
}

// packagesNote is what the create stage's prompt adds when the run allows
// packages (think --allow-packages).
const packagesNote = `

Packages: a python block may also import PyPI packages beyond the allowed modules when the standard ones do not suffice: list each in requirements as a pip requirement with a version ("numpy>=2.1", "python-dateutil==2.9.*"), wheels only; they are locked and installed before the block runs, and confined as its code is. requirements is [] for a block that needs none and for every go, js and llm block.`

// packagesRefused is the diagnostic of a reply that gives a block
// requirements when the run does not allow packages.
func packagesRefused(reply *createReply, allowed bool) hcl.Diagnostics {
	if allowed || len(reply.Requirements) == 0 {
		return nil
	}
	return problem("Packages not allowed", "This run does not allow packages (think --allow-packages): leave requirements out and import only the allowed modules.")
}
