package arguments

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/spf13/pflag"
)

// command is what every command's struct is.
type command interface {
	Flags(*pflag.FlagSet)
	Args([]string) error
}

// parse reads argv as cobra does: a flag set of the command's flags and
// the help flag, flags and arguments interspersed, "--" ending the flags,
// a flag error reported by FlagError (root.go's SetFlagErrorFunc); then
// Args, with the arguments that are not flags.
func parse(a command, argv []string) error {
	fs := pflag.NewFlagSet("flowctl", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	a.Flags(fs)
	fs.BoolP("help", "h", false, "help for flowctl")
	if err := fs.Parse(argv); err != nil {
		return FlagError(err, fs)
	}
	return a.Args(fs.Args())
}

// forget clears what a struct remembers of its flag set, so that two
// structs compare by their values.
func forget(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			forget(v.Elem())
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if f.Type() == reflect.TypeOf(flagSet{}) {
				// An unexported field, set through its address.
				reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(flagSet{}))
				continue
			}
			forget(f)
		}
	}
}

// argsCase is a command line and what it reads as: the struct (its
// defaults changed by want), or the usage error err.
type argsCase[T any] struct {
	argv string // split on spaces; "|" separates arguments that hold spaces
	want func(*T)
	err  string
}

func words(argv string) []string {
	if strings.Contains(argv, "|") {
		return strings.Split(argv, "|")
	}
	return strings.Fields(argv)
}

// check runs the cases of a command whose struct is T.
func check[T any, P interface {
	*T
	command
}](t *testing.T, cases []argsCase[T]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.argv, func(t *testing.T) {
			got := P(new(T))
			err := parse(got, words(c.argv))
			if c.err != "" {
				var ue *UsageError
				if err == nil || !asUsage(err, &ue) {
					t.Fatalf("error %v (%T), want the usage error %q", err, err, c.err)
				}
				if err.Error() != c.err {
					t.Fatalf("error\n  %s\nwant\n  %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := P(new(T))
			want.Flags(pflag.NewFlagSet("defaults", pflag.ContinueOnError))
			if c.want != nil {
				c.want((*T)(want))
			}
			forget(reflect.ValueOf(got))
			forget(reflect.ValueOf(want))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got\n  %+v\nwant\n  %+v", got, want)
			}
		})
	}
}

func asUsage(err error, ue **UsageError) bool {
	u, ok := err.(*UsageError)
	*ue = u
	return ok
}

// ran is what Args adds to a Run: the --secret values, none.
func ran(r *Run) { r.SecretValues = map[string]string{} }

func TestApply(t *testing.T) {
	check(t, []argsCase[Apply]{
		{argv: "", want: func(a *Apply) { ran(&a.Run); a.Path = "." }},
		{argv: "flow.hcl --json --auto-approve --secret K=V=W -v --namespace ns", want: func(a *Apply) {
			ran(&a.Run)
			a.Path, a.JSON, a.AutoApprove, a.Run.Verbose, a.Run.Namespace, a.Run.NamespaceSet = "flow.hcl", true, true, true, "ns", true
			a.Run.Secrets, a.Run.SecretValues = []string{"K=V=W"}, map[string]string{"K": "V=W"}
		}},
		{argv: "--resume r1 --flow f.flow.hcl --keep-succeeded step.a --engine temporal", want: func(a *Apply) {
			ran(&a.Run)
			a.Resume, a.Flow, a.Run.KeepSucceeded, a.Engine.Engine = "r1", "f.flow.hcl", []string{"step.a"}, "temporal"
		}},
		{argv: "-- -odd", want: func(a *Apply) { ran(&a.Run); a.Path = "-odd" }},
		{argv: "a b", err: "accepts between 0 and 1 arg(s), received 2"},
		{argv: "--engine nomad", err: `unknown engine "nomad": use local or temporal`},
		{argv: "--resume r1 flow.hcl", err: "apply --resume takes no FLOW: the run names its flow (use --flow to give its file)"},
		{argv: "--keep-succeeded step.a", err: "--keep-succeeded keeps the instances that succeeded in a run being resumed: use it with --resume RUN_ID"},
		{argv: "--parallelism -1", err: "--parallelism must be 0 (no cap) or more"},
		{argv: "--secret TOKEN", err: "--secret must have the form NAME=VALUE"},
		{argv: "--secret =x", err: "--secret must have the form NAME=VALUE"},
		{argv: "--go-engine jit", err: `unknown --go-engine "jit": use interpreted or compiled`},
		{argv: "--input topic", err: `--input "topic" must have the form NAME=VALUE`},
		{argv: "--state-wait -1s", err: "--state-wait must be a positive duration"},
		{argv: "--http-conns-per-host -2", err: "--http-conns-per-host must be at least 1"},
		{argv: "--sandbox docker", err: `unknown --sandbox "docker": use isolated or inprocess`},
		{argv: "-auto-approve", err: "unknown shorthand flag: 'a' in -auto-approve; did you mean --auto-approve?"},
		{argv: "--auto-aprove", err: "unknown flag: --auto-aprove; did you mean --auto-approve?"},
		{argv: "--bogus", err: "unknown flag: --bogus"},
		{argv: "--parallelism many", err: `invalid argument "many" for "--parallelism" flag: strconv.ParseInt: parsing "many": invalid syntax`},
	})
}

func TestPlan(t *testing.T) {
	check(t, []argsCase[Plan]{
		{argv: "dir --out p.json --detailed-exitcode --expand --go-engine compiled", want: func(a *Plan) {
			ran(&a.Run)
			a.Path, a.Out, a.Detailed, a.Expand, a.Run.GoEngine = "dir", "p.json", true, true, "compiled"
		}},
		{argv: "--resume r1 --keep-succeeded step.a", want: func(a *Plan) {
			ran(&a.Run)
			a.Resume, a.Run.KeepSucceeded = "r1", []string{"step.a"}
		}},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
		{argv: "--resume r1 dir", err: "plan --resume takes no FLOW: the run names its flow (use --flow to give its file)"},
		{argv: "--resume r1 --out p.json", err: "plan --resume cannot be saved (--out): apply --resume RUN_ID resumes the run as planned"},
		{argv: "--keep-succeeded step.a", err: "--keep-succeeded keeps the instances that succeeded in a run being resumed: use it with --resume RUN_ID"},
		{argv: "--flow f.flow.hcl", err: "--flow names the flow file of a run being resumed: use it with --resume RUN_ID, or give FLOW"},
		{argv: "-out=p.json", err: "unknown shorthand flag: 'o' in -out=p.json; did you mean --out=p.json?"},
		{argv: "--detailed-exitcod", err: "unknown flag: --detailed-exitcod; did you mean --detailed-exitcode?"},
		{argv: "--verbose", err: "unknown flag: --verbose"}, // plan runs no step
	})
}

func TestWatch(t *testing.T) {
	check(t, []argsCase[Watch]{
		{argv: "f.flow.hcl --test --debounce 1s", want: func(a *Watch) {
			ran(&a.Run)
			a.Path, a.Test, a.Debounce = "f.flow.hcl", true, time.Second
		}},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
		{argv: "--secret x", err: "--secret must have the form NAME=VALUE"},
	})
}

func TestExplain(t *testing.T) {
	check(t, []argsCase[Explain]{
		{argv: "", want: func(a *Explain) { ran(&a.Run) }},
		{argv: "r1 --no-fix --max-tokens 500 --model m", want: func(a *Explain) {
			ran(&a.Run)
			a.RunID, a.NoFix, a.MaxTokens, a.Model = "r1", true, 500, "m"
		}},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
		{argv: "--max-tokens 0", err: "--max-tokens must be at least 1"},
	})
}

func TestApprove(t *testing.T) {
	check(t, []argsCase[Approve]{
		{argv: "r1 gate --reject --comment no --by ana --instance 2", want: func(a *Approve) {
			ran(&a.Run)
			a.RunID, a.Step, a.Reject, a.Comment, a.By, a.Instance = "r1", "gate", true, "no", "ana", "2"
		}},
		{argv: "r1", err: "accepts 2 arg(s), received 1"},
	})
}

func TestWorker(t *testing.T) {
	check(t, []argsCase[Worker]{
		{argv: "--engine temporal", want: func(a *Worker) { ran(&a.Run); a.Dir, a.Engine.Engine = ".", "temporal" }},
		{argv: "flows --namespace prod", want: func(a *Worker) {
			ran(&a.Run)
			a.Dir, a.OldNamespace, a.Engine.Namespace, a.DeprecatedNamespace = "flows", "prod", "prod", true
		}},
		{argv: "--namespace prod --temporal-namespace prod", want: func(a *Worker) {
			ran(&a.Run)
			a.Dir, a.OldNamespace, a.Engine.Namespace, a.DeprecatedNamespace = ".", "prod", "prod", true
		}},
		{argv: "--namespace a --temporal-namespace b", err: "--namespace is the old name of --temporal-namespace: give one of them"},
		{argv: "--log-format yaml", err: `unknown --log-format "yaml": use text or json`},
		{argv: "--engine x", err: `unknown engine "x": use local or temporal`},
		{argv: "--sandbox vm", err: `unknown --sandbox "vm": use isolated or inprocess`},
		{argv: "--secret s", err: "--secret must have the form NAME=VALUE"},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
	})
}

func TestServe(t *testing.T) {
	check(t, []argsCase[Serve]{
		{argv: "", want: func(a *Serve) { a.Path = "." }},
		{argv: "flows --retention 2w --max-active 3", want: func(a *Serve) {
			a.Path, a.Retention, a.KeepFor, a.MaxActive = "flows", "2w", 14*24*time.Hour, 3
		}},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
		{argv: "--token-file a --tokens-file b", err: "give --token-file or --tokens-file, not both"},
		{argv: "--tls-cert c.pem", err: "--tls-cert and --tls-key go together"},
		{argv: "--log-format yaml", err: `unknown --log-format "yaml": use text or json`},
		{argv: "--max-queue 0", err: "--max-active and --max-queue must be at least 1"},
		{argv: "--idempotency-expiry 0s", err: "--idempotency-expiry must be positive"},
		{argv: "--retention soon", err: `--retention "soon": not an age such as 30d, 2w, 12h or 90m`},
		{argv: "--retention -3d", err: `--retention "-3d": not a positive number of days`},
		{argv: "--go-engine x", err: `unknown --go-engine "x": use interpreted or compiled`},
		{argv: "--sandbox vm", err: `unknown --sandbox "vm": use isolated or inprocess`},
		{argv: "--state-wait -1m", err: "--state-wait must be a positive duration"},
	})
}

func TestMCP(t *testing.T) {
	check(t, []argsCase[MCP]{
		// Without --http, the token and TLS flags do not matter.
		{argv: "dir --token-file a --tokens-file b --only x,y", want: func(a *MCP) {
			a.Path, a.Dir.Tokens, a.Only = "dir", Tokens{"a", "b"}, []string{"x", "y"}
		}},
		{argv: "--http :9000 --token-file a --tokens-file b", err: "give --token-file or --tokens-file, not both"},
		{argv: "--http :9000 --tls-key k.pem", err: "--tls-cert and --tls-key go together"},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
	})
}

func TestTest(t *testing.T) {
	check(t, []argsCase[Test]{
		{argv: "", want: func(a *Test) { a.Paths, a.Format = []string{"."}, "human" }},
		{argv: "a b --json --repeat 3 --min-pass-rate 0.5", want: func(a *Test) {
			a.Paths, a.JSON, a.Format, a.Repeat, a.MinPassRate = []string{"a", "b"}, true, "json", 3, 0.5
		}},
		{argv: "--format github", want: func(a *Test) { a.Paths, a.Format = []string{"."}, "github" }},
		{argv: "--sandbox docker", err: `unknown --sandbox "docker": use isolated or inprocess`},
		{argv: "--go-engine x", err: `unknown --go-engine "x": use interpreted or compiled`},
		{argv: "--run (", err: "--run \"(\" is not a regular expression: error parsing regexp: missing closing ): `(`"},
		{argv: "--parallelism -1", err: "--parallelism must be at least 1"},
		{argv: "--repeat 0", err: "--repeat must be at least 1"},
		{argv: "--min-pass-rate 2", err: "--min-pass-rate must be between 0 and 1"},
		{argv: "--json --format github", err: "--json and --format github disagree"},
		{argv: "--format xml", err: `unknown --format "xml": use human, json or github`},
	})
	// -run REGEX, as go test takes it.
	got := &Test{}
	if err := parse(got, GoStyleRun([]string{"test", "-run", "^a$"})[1:]); err != nil || got.Filter.String() != "^a$" {
		t.Errorf("-run ^a$: %v, filter %v", err, got.Filter)
	}
}

func TestGoStyleRun(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"test -run x", "test --run x"},
		{"test -run=x .", "test --run=x ."},
		{"test --run x", "test --run x"},
		{"test -- -run", "test -- -run"},
		{"validate -run", "validate -run"},
	} {
		if got := strings.Join(GoStyleRun(strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
}

func TestThink(t *testing.T) {
	check(t, []argsCase[Think]{
		{argv: "  summarize the news  |--runtime|python", want: func(a *Think) { a.Intent, a.Runtime = "summarize the news", "python" }},
		{argv: "x|--edit|f.flow.hcl|--accept", want: func(a *Think) { a.Intent, a.Edit, a.Accept = "x", "f.flow.hcl", true }},
		{argv: "", err: "accepts 1 arg(s), received 0"},
		{argv: "  |--json", err: "the intent is empty; say what the flow should do"},
		{argv: "x --out x.hcl", err: `--out must name a *.flow.hcl file, not "x.hcl"`},
		{argv: "x --max-calls 0", err: "--max-calls must be at least 1"},
		{argv: "x --edit f.flow.hcl --force", err: "--edit proposes a change of its flow: --out and --force do not apply"},
		{argv: "x --accept", err: "--accept is for --edit, which proposes a change"},
		{argv: "x --runtime rust", err: `unknown --runtime "rust": use go, js or python`},
		{argv: "x --max-tokens -5", err: "--max-tokens must be at least 1"},
		{argv: "x --sandbox vm", err: `unknown --sandbox "vm": use isolated or inprocess`},
	})
}

func TestValidate(t *testing.T) {
	check(t, []argsCase[Validate]{
		{argv: "", want: func(a *Validate) { a.Paths = []string{"."} }},
		{argv: "a --json", want: func(a *Validate) { a.Paths, a.JSON, a.Format = []string{"a"}, true, "json" }},
		{argv: "--json --format json", err: "--json and --format cannot be used together"},
		{argv: "--format xml", err: `unknown --format "xml": use human, json or github`},
		{argv: "--go-engine x", err: `unknown --go-engine "x": use interpreted or compiled`},
	})
}

func TestDocs(t *testing.T) {
	check(t, []argsCase[Docs]{
		{argv: "--out d.md --check", want: func(a *Docs) { a.Paths, a.Out, a.Check = []string{"."}, "d.md", true }},
		{argv: "--format html", err: `unknown --format "html": use markdown or json`},
		{argv: "--check", err: "--check needs --out: the file to compare"},
	})
}

func TestGraph(t *testing.T) {
	check(t, []argsCase[Graph]{
		{argv: "--format mermaid", want: func(a *Graph) { a.Path, a.Format = ".", "mermaid" }},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
		{argv: "--format svg", err: `unknown --format "svg": use dot or mermaid`},
	})
}

func TestImport(t *testing.T) {
	check(t, []argsCase[Import]{
		{argv: "a.json b.json --from n8n --force", want: func(a *Import) { a.Files, a.From, a.Force = []string{"a.json", "b.json"}, "n8n", true }},
		{argv: "", err: "requires at least 1 arg(s), only received 0"},
		{argv: "a.json --from zapier", err: `unknown --from "zapier": use anythingllm, agentflow or n8n`},
	})
}

func TestSmallCommands(t *testing.T) {
	check(t, []argsCase[Init]{
		{argv: "", want: func(a *Init) { a.Dir = "." }},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
	})
	check(t, []argsCase[LSP]{
		{argv: "--registry r", want: func(a *LSP) { a.Registries = Registries{"r"} }},
		{argv: "x", err: `unknown command "x" for "flowctl lsp"`},
	})
	check(t, []argsCase[Version]{
		{argv: "--json", want: func(a *Version) { a.JSON = true }},
		{argv: "x", err: `unknown command "x" for "flowctl version"`},
	})
	check(t, []argsCase[StateMigrate]{
		{argv: "--dry-run", want: func(a *StateMigrate) { a.DryRun = true }},
		{argv: "x", err: `unknown command "x" for "flowctl state migrate"`},
	})
	check(t, []argsCase[Fmt]{
		{argv: "", want: func(a *Fmt) { a.Paths = []string{"."} }},
		{argv: "- --diff", want: func(a *Fmt) { a.Paths, a.Diff = []string{"-"}, true }},
	})
	check(t, []argsCase[Output]{
		{argv: "answer --run r1", want: func(a *Output) { a.Name, a.Run = "answer", "r1" }},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
	})
	check(t, []argsCase[Tools]{
		{argv: "dir --format mcp", want: func(a *Tools) { a.Dir, a.Format = "dir", "mcp" }},
		{argv: "a b", err: "accepts at most 1 arg(s), received 2"},
		{argv: "--format yaml", err: `unknown --format "yaml": use openai, mcp or json-schema`},
	})
}

func TestBlocks(t *testing.T) {
	check(t, []argsCase[Blocks]{
		{argv: "", want: func(a *Blocks) { a.Sub = "list" }},
		{argv: "search fetch a page", want: func(a *Blocks) { a.Sub, a.Query = "search", "fetch a page" }},
		{argv: "show http", want: func(a *Blocks) { a.Sub, a.Name = "show", "http" }},
		{argv: "list x", err: "blocks list takes no arguments"},
		{argv: "search q --limit 0", err: "--limit must be at least 1"},
		{argv: "search| ", err: `blocks search needs a query, such as: flowctl blocks search "fetch a web page"`},
		{argv: "show", err: "blocks show needs one block name"},
		{argv: "describe x", err: `unknown blocks subcommand "describe": use list, search QUERY or show NAME`},
	})
}

func TestRecordSubcommands(t *testing.T) {
	check(t, []argsCase[Patterns]{
		{argv: "", want: func(a *Patterns) { a.Sub = "list" }},
		{argv: "forget p1", want: func(a *Patterns) { a.Sub, a.ID = "forget", "p1" }},
		{argv: "list p1", err: "patterns list takes no ID"},
		{argv: "show", err: "patterns show needs one pattern ID"},
		{argv: "drop p1", err: `unknown patterns subcommand "drop": use list, show ID, forget ID`},
		{argv: "show a b", err: "accepts between 0 and 2 arg(s), received 3"},
	})
	check(t, []argsCase[Proposals]{
		{argv: "accept p1 --auto-approve", want: func(a *Proposals) { a.Sub, a.ID, a.AutoApprove = "accept", "p1", true }},
		{argv: "reject", err: "proposals reject needs one proposal ID"},
		{argv: "drop p1", err: `unknown proposals subcommand "drop": use list, show ID, accept ID, reject ID`},
	})
}

func TestRuns(t *testing.T) {
	check(t, []argsCase[Runs]{
		{argv: "", want: func(a *Runs) { a.Sub = "list" }},
		{argv: "list --all --limit 5", want: func(a *Runs) { a.Sub, a.All, a.Limit = "list", true, 5 }},
		{argv: "show", want: func(a *Runs) { a.Sub, a.RunID = "show", "latest" }},
		{argv: "show r1 --step s", want: func(a *Runs) { a.Sub, a.RunID, a.Step = "show", "r1", "s" }},
		{argv: "logs r1 fetch --follow", want: func(a *Runs) { a.Sub, a.RunID, a.LogStep, a.Follow = "logs", "r1", "fetch", true }},
		{argv: "retry r1", want: func(a *Runs) { a.Sub, a.RunID = "retry", "r1" }},
		{argv: "prune --older-than 30d --keep 2", want: func(a *Runs) {
			a.Sub, a.Prune = "prune", Prune{OlderThan: "30d", Age: 30 * 24 * time.Hour, Keep: 2}
		}},
		{argv: "a b c d", err: "accepts between 0 and 3 arg(s), received 4"},
		{argv: "show r1 x", err: "runs show takes at most one run id"},
		{argv: "retry", err: "runs retry needs a run id"},
		{argv: "list x", err: `unknown runs subcommand "list": use list, show [RUN_ID], logs [RUN_ID [STEP]], retry RUN_ID, pause RUN_ID, resume RUN_ID or prune`},
		{argv: "prune", err: "runs prune needs --older-than AGE or --keep N (or both): it deletes nothing by default"},
		{argv: "prune --keep -1", err: "--keep must be 0 or more"},
		{argv: "prune --older-than 3x", err: `--older-than "3x": not an age such as 30d, 2w, 12h or 90m`},
	})
}
