// Package mcp serves flows as Model Context Protocol tools (flowctl mcp),
// with the official Go SDK: one tool per flow, whose input and output
// schemas are the flow's (compiler.Program.InputSchema, OutputSchema); a
// call runs the flow with the local runtime, the state and cache of apply.
// The flows' sources are resources, and so is each run's record
// (flowctl://runs/{id}). Flows are compiled again when their files change,
// and the tool list with them.
package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a Server.
type Options struct {
	// NoRecordPrompts keeps the runs' model calls out of the state
	// (--no-record-prompts).
	NoRecordPrompts bool
	// Files lists the flow files offered; it is called again at each
	// look for changes, so that new files become tools and removed ones
	// stop being.
	Files      func() []string
	Registries []string
	GoEngine   string
	Only       []string // when set, only these flows
	Store      *state.Store
	Executors  *blocks.Executors
	Version    string
	// Warnings, when set, is told of each flow file that does not
	// compile (at each change of its content).
	Warnings io.Writer
}

// Server is the flows as an MCP server.
type Server struct {
	opts Options
	sdk  *sdk.Server

	mu    sync.Mutex
	flows map[string]*flow // by file
}

// flow is a flow file and, when it compiles, its tool.
type flow struct {
	sum  [32]byte
	prog *compiler.Program
}

// New compiles the flows and makes the MCP server.
func New(opts Options) *Server {
	s := &Server{opts: opts, flows: map[string]*flow{}}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "flowctl", Version: opts.Version}, nil)
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: "flowctl://runs/{id}", Name: "run", MIMEType: "application/json",
		Description: "The record of a run: status, inputs, outputs, and its step instances",
	}, s.readRun)
	s.refresh()
	return s
}

// SDK is the MCP server, to run on a transport.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Watch compiles the flows again when their files change, until ctx ends.
func (s *Server) Watch(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.refresh()
		}
	}
}

// refresh compiles the flow files whose content changed, and replaces
// their tools and resources; a flow that no longer compiles keeps its last
// good tool.
func (s *Server) refresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	files := s.opts.Files()
	for file, f := range s.flows {
		if !slices.Contains(files, file) {
			if f.prog != nil {
				s.sdk.RemoveTools(f.prog.Flow.Name)
				s.sdk.RemoveResources(flowURI(f.prog))
			}
			delete(s.flows, file)
		}
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		sum := sha256.Sum256(src)
		f := s.flows[file]
		if f != nil && f.sum == sum {
			continue
		}
		if f == nil {
			f = &flow{}
			s.flows[file] = f
		}
		f.sum = sum
		prog, diags := compiler.Compile(file, compiler.Options{RegistryDirs: s.opts.Registries, GoEngine: s.opts.GoEngine})
		if diags.HasErrors() {
			if s.opts.Warnings != nil {
				fmt.Fprintf(s.opts.Warnings, "Warning: %s does not compile, so it is not offered (or keeps its last good version):\n%s\n", file, runtime.DiagText(diags))
			}
			continue
		}
		if f.prog != nil {
			s.sdk.RemoveTools(f.prog.Flow.Name)
			s.sdk.RemoveResources(flowURI(f.prog))
		}
		f.prog = prog
		if !Offered(prog, s.opts.Only) {
			continue
		}
		in, _ := json.Marshal(prog.InputSchema())
		out, _ := json.Marshal(prog.OutputSchema())
		s.sdk.AddTool(&sdk.Tool{
			Name: prog.Flow.Name, Description: prog.Flow.Description,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
		}, s.call(prog))
		text := string(src)
		s.sdk.AddResource(&sdk.Resource{
			URI: flowURI(prog), Name: prog.Flow.Name, MIMEType: "text/plain",
			Description: "The source of flow " + prog.Flow.Name + " (" + file + ")",
		}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}}, nil
		})
	}
}

// Offered reports whether a flow is offered as a tool: it does not say
// expose = false, and it is among only when only is set (--only).
func Offered(p *compiler.Program, only []string) bool {
	return !p.Flow.Hidden && (len(only) == 0 || slices.Contains(only, p.Flow.Name))
}

func flowURI(p *compiler.Program) string { return "flowctl://flows/" + p.Flow.Name }

// call is the handler of a flow's tool: it checks the arguments against
// the flow's inputs, runs the flow, reports progress when the client asks
// for it, and returns the outputs; a failed run is an error result with
// the failing steps' errors and the outputs it could compute. The client's
// cancellation cancels the run.
func (s *Server) call(prog *compiler.Program) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args map[string]json.RawMessage
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return errorResult("The arguments are not a JSON object (the JSON Schema of flow %q's arguments is an object of its inputs): %v.", prog.Flow.Name, err), nil
			}
		}
		if problems := api.CheckArguments(prog, args); len(problems) > 0 {
			return errorResult("The arguments do not fit the JSON Schema of flow %q's arguments:\n%s", prog.Flow.Name, strings.Join(problems, "\n")), nil
		}
		given := map[string]compiler.InputValue{}
		for name, raw := range args {
			v, err := jsonval.Decode(raw)
			if err != nil {
				return errorResult("Argument %q is not JSON: %v.", name, err), nil
			}
			given[name] = compiler.InputValue{Value: v, Source: "the arguments"}
		}
		inputs, diags := prog.ResolveInputs(given)
		if diags.HasErrors() {
			return errorResult("The arguments do not fit flow %q's inputs:\n%s", prog.Flow.Name, runtime.DiagText(diags)), nil
		}
		token := req.Params.GetProgressToken()
		done, total, deltas := 0, len(prog.Steps), 0
		res, err := runtime.Apply(ctx, prog, runtime.Options{
			Inputs: inputs, Store: s.opts.Store, Executors: s.opts.Executors, Origin: "mcp", NoRecordPrompts: s.opts.NoRecordPrompts,
			Observe: func(e runtime.Event) {
				if token == nil {
					return
				}
				switch e := e.(type) {
				case runtime.StepFinished:
					if e.Instance.IsNone() {
						done, deltas = done+1, 0
						req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
							ProgressToken: token, Progress: float64(min(done, total)), Total: float64(total),
							Message: fmt.Sprintf("step %s %s", e.Step, e.Status),
						})
					}
				case runtime.StepDelta:
					// The text of a streaming step, as it comes; progress
					// must grow with each notification, and stays below
					// the next step's.
					deltas++
					req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(min(done, total)) + float64(deltas)/float64(deltas+1), Total: float64(total),
						Message: e.Text,
					})
				}
			},
		})
		if err != nil {
			return nil, err
		}
		outputs := runtime.PlainOutputs(res.Outputs)
		text, _ := json.MarshalIndent(outputs, "", "  ")
		switch res.Status {
		case runtime.StatusOK:
			return &sdk.CallToolResult{
				Content:           []sdk.Content{&sdk.TextContent{Text: string(text)}},
				StructuredContent: outputs,
			}, nil
		case runtime.StatusWaiting:
			return waitingResult(prog, res, string(text)), nil
		}
		msg := fmt.Sprintf("Run %s of flow %s %s.", res.RunID, prog.Flow.Name, res.Status)
		if len(res.Diagnostics) > 0 {
			msg += "\n" + runtime.DiagText(res.Diagnostics)
		}
		msg += "\nOutputs it could compute: " + string(text)
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}, nil
	}
}

// waitingResult says that a run stopped at approval steps: it waits for a
// person's decision, which the tool's caller cannot give. The run is not
// lost and must not be started again: a person decides, and the run goes
// on (with flowctl approve, in the foreground, or in flowctl serve's
// dashboard when the server shares the state). It is an error result
// because the flow's outputs are not there yet.
func waitingResult(prog *compiler.Program, res *runtime.Result, outputs string) *sdk.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "Run %s of flow %s waits for a person's decision; it has not failed, and calling the tool again starts another run.\n", res.RunID, prog.Flow.Name)
	for _, w := range res.Waiting {
		step := w.Step
		if !w.Instance.IsNone() {
			step += "[" + w.Instance.String() + "]"
		}
		fmt.Fprintf(&b, "Step %s asks: %s", step, w.Message)
		if !w.Deadline.IsZero() {
			fmt.Fprintf(&b, " (until %s)", runtime.JSONTime(w.Deadline))
		}
		b.WriteString("\n")
	}
	b.WriteString("A person decides it, and the run goes on from there:")
	for _, w := range res.Waiting {
		inst := ""
		if !w.Instance.IsNone() {
			inst = " --instance " + w.Instance.String()
		}
		fmt.Fprintf(&b, "\n  flowctl approve %s %s%s   (or with --reject, and --comment TEXT)", res.RunID, w.Step, inst)
	}
	fmt.Fprintf(&b, "\nor with the Approve and Reject buttons of the run's page in flowctl serve's dashboard (/runs/%s). The run's record is the resource flowctl://runs/%s.", res.RunID, res.RunID)
	b.WriteString("\nIts outputs so far: " + outputs)
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}
}

// readRun is the resource flowctl://runs/{id}: a run's record, as flowctl
// serve's GET /v1/runs/{id} gives it (package server/api).
func (s *Server) readRun(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	id := strings.TrimPrefix(req.Params.URI, "flowctl://runs/")
	run, err := s.opts.Store.Run(id)
	if err != nil {
		return nil, sdk.ResourceNotFoundError(req.Params.URI)
	}
	doc, err := api.ReadRun(s.opts.Store, run)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
}

func errorResult(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}
