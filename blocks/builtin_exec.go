package blocks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	goruntime "runtime"
	"time"
	"unicode/utf8"

	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// MaxFileBytes bounds what the file block reads.
const MaxFileBytes = 10 << 20

// BuiltinExecutors returns the executors of the built-in blocks, with the
// default HTTP options.
func BuiltinExecutors() map[string]Executor { return BuiltinExecutorsWith(HTTPOptions{}) }

// BuiltinExecutorsWith returns the executors of the built-in blocks; http
// and scrape share one client made from o.
func BuiltinExecutorsWith(o HTTPOptions) map[string]Executor {
	h := newHTTPExecutor(nil, o)
	return map[string]Executor{
		"value":  valueExecutor{},
		"file":   fileExecutor{},
		"sleep":  ExecutorFunc(execSleep),
		"sql":    sqlExecutor{o.Egress},
		"smtp":   smtpExecutor{o.Egress},
		"imap":   imapExecutor{o.Egress},
		"http":   h,
		"scrape": &scrapeExecutor{h},
		// The retrieval blocks' executors are package blocks/retrieval's
		// (retrieval.Executors); embed runs on the model executor
		// (Executors.For).
	}
}

// valueExecutor runs the value block. It is Bounded: it computes on its
// caller's goroutine and never waits, so more instances of a for_each at
// once than there are processors gain nothing (and 100,000 at once would
// hold 100,000 goroutines, and contend for the state, for nothing).
type valueExecutor struct{}

func (valueExecutor) Width(*Block) int { return goruntime.GOMAXPROCS(0) }

func (valueExecutor) Execute(_ context.Context, call *Call) (*Result, error) {
	return &Result{Outputs: map[string]cty.Value{"value": call.Inputs["value"]}}, nil
}

// fileExecutor runs the file block. Its cache key includes the file's
// content, so an edited file is read again.
type fileExecutor struct{}

func (fileExecutor) CacheKey(call *Call) (string, error) {
	b, _, err := readLocalFile(call)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func (fileExecutor) Execute(_ context.Context, call *Call) (*Result, error) {
	b, _, err := readLocalFile(call)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return &Result{Outputs: map[string]cty.Value{
		"text":   cty.StringVal(string(b)),
		"sha256": cty.StringVal(hex.EncodeToString(sum[:])),
	}}, nil
}

func readLocalFile(call *Call) ([]byte, string, error) {
	rel := call.Inputs["path"].AsString()
	shown := call.Show(rel)
	path, err := lang.ResolveLocalPath(call.Dir, rel)
	if err != nil {
		return nil, "", fmt.Errorf("the path %q %v", shown, err)
	}
	if call.Touch != nil {
		call.Touch(path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read %q: %w", shown, unwrap(err))
	}
	if info.IsDir() {
		return nil, "", fmt.Errorf("%q is a directory, not a file", shown)
	}
	if info.Size() > MaxFileBytes {
		return nil, "", fmt.Errorf("%q is %d bytes, more than the %d the file block reads", shown, info.Size(), MaxFileBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read %q: %w", shown, unwrap(err))
	}
	if !utf8.Valid(b) {
		return nil, "", fmt.Errorf("%q is not UTF-8 text", shown)
	}
	return b, path, nil
}

func execSleep(ctx context.Context, call *Call) (*Result, error) {
	d, err := time.ParseDuration(call.Inputs["duration"].AsString())
	if err != nil || d < 0 {
		return nil, fmt.Errorf("invalid duration %q", call.Show(call.Inputs["duration"].AsString()))
	}
	start := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &Result{Outputs: map[string]cty.Value{
		"slept_ms": cty.NumberIntVal(time.Since(start).Milliseconds()),
	}}, nil
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
