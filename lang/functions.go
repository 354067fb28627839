package lang

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// MaxFileFunctionBytes bounds what file() reads.
const MaxFileFunctionBytes = 10 << 20

// Functions returns the function table (docs/design.md, "The language"): go-cty's standard library
// under Terraform's names, plus urlencode, base64encode, base64decode,
// sha256, file and fileset. file and fileset read relative to baseDir and may
// not leave it.
func Functions(baseDir string) map[string]function.Function {
	return FunctionsReporting(baseDir, nil)
}

// FunctionsReporting is Functions, with file() reporting each path it
// reads to onRead (watch mode re-runs a flow when one of them changes).
func FunctionsReporting(baseDir string, onRead func(path string)) map[string]function.Function {
	return map[string]function.Function{
		// numbers
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"log": stdlib.LogFunc, "max": stdlib.MaxFunc, "min": stdlib.MinFunc,
		"parseint": stdlib.ParseIntFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,
		"sum": sumFunc,
		// strings
		"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
		"indent": stdlib.IndentFunc, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc,
		"upper": stdlib.UpperFunc, "regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc,
		"replace": replaceFunc, "split": stdlib.SplitFunc, "strrev": stdlib.ReverseFunc,
		"substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc, "trim": stdlib.TrimFunc,
		"trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
		"trimspace":   stdlib.TrimSpaceFunc,
		"startswith":  stringPredicate("prefix", strings.HasPrefix),
		"endswith":    stringPredicate("suffix", strings.HasSuffix),
		"strcontains": stringPredicate("substr", strings.Contains),
		// collections
		"chunklist": stdlib.ChunklistFunc, "coalesce": stdlib.CoalesceFunc,
		"coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc,
		"element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc, "keys": stdlib.KeysFunc,
		"length": lengthFunc, "lookup": stdlib.LookupFunc, "merge": stdlib.MergeFunc,
		"range": stdlib.RangeFunc, "reverse": stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc, "setsubtract": stdlib.SetSubtractFunc,
		"setunion": stdlib.SetUnionFunc, "slice": stdlib.SliceFunc, "sort": stdlib.SortFunc,
		"values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
		// encoding
		"csvdecode": stdlib.CSVDecodeFunc, "jsonencode": stdlib.JSONEncodeFunc,
		"jsondecode": stdlib.JSONDecodeFunc, "base64encode": base64EncodeFunc,
		"base64decode": base64DecodeFunc, "urlencode": urlEncodeFunc, "sha256": sha256Func,
		// time
		"formatdate": stdlib.FormatDateFunc, "timeadd": stdlib.TimeAddFunc,
		// types
		"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)), "tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"try": tryfunc.TryFunc, "can": tryfunc.CanFunc, "nonsensitive": nonsensitiveFunc,
		// files
		"file": fileFunc(baseDir, onRead), "fileset": filesetFunc(baseDir, onRead),
	}
}

// nonsensitiveFunc is nonsensitive(value): the value without its
// sensitive mark, for what is safe to show although derived from a secret
// (a length, whether it is set). The value itself is not changed.
var nonsensitiveFunc = function.New(&function.Spec{
	Description: "Returns the value without its sensitive mark",
	Params: []function.Parameter{{
		Name: "value", Type: cty.DynamicPseudoType,
		AllowMarked: true, AllowNull: true, AllowUnknown: true, AllowDynamicType: true,
	}},
	Type: func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, _ := args[0].UnmarkDeep()
		return v, nil
	},
})

func stringFunc(desc string, f func(string) (string, error)) function.Function {
	return function.New(&function.Spec{
		Description: desc,
		Params:      []function.Parameter{{Name: "str", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
			return b.NotNull()
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			s, err := f(args[0].AsString())
			if err != nil {
				return cty.UnknownVal(cty.String), err
			}
			return cty.StringVal(s), nil
		},
	})
}

var urlEncodeFunc = stringFunc("Escapes a string for use in a URL query.", func(s string) (string, error) {
	return url.QueryEscape(s), nil
})

var base64EncodeFunc = stringFunc("Encodes a string's UTF-8 bytes as Base64.", func(s string) (string, error) {
	return base64.StdEncoding.EncodeToString([]byte(s)), nil
})

var base64DecodeFunc = stringFunc("Decodes a Base64 string that holds UTF-8 text.", func(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", function.NewArgErrorf(0, "the string is not valid Base64: %s", err)
	}
	if !utf8.Valid(b) {
		return "", function.NewArgErrorf(0, "the decoded bytes are not valid UTF-8")
	}
	return string(b), nil
})

var sha256Func = stringFunc("Returns the hex SHA-256 digest of a string's UTF-8 bytes.", func(s string) (string, error) {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:]), nil
})

func stringPredicate(second string, f func(s, t string) bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: second, Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(f(args[0].AsString(), args[1].AsString())), nil
		},
	})
}

// replaceFunc is Terraform's replace: a substring wrapped in slashes is a
// regular expression.
var replaceFunc = function.New(&function.Spec{
	Description: "Replaces each occurrence of a substring (or of a /regular expression/) with another string.",
	Params: []function.Parameter{
		{Name: "str", Type: cty.String}, {Name: "substr", Type: cty.String}, {Name: "replace", Type: cty.String},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		sub := args[1].AsString()
		if len(sub) > 1 && strings.HasPrefix(sub, "/") && strings.HasSuffix(sub, "/") {
			re := cty.StringVal(sub[1 : len(sub)-1])
			return stdlib.RegexReplaceFunc.Call([]cty.Value{args[0], re, args[2]})
		}
		return stdlib.ReplaceFunc.Call(args)
	},
})

// sumFunc is Terraform's sum: the total of a list, set or tuple of numbers.
var sumFunc = function.New(&function.Spec{
	Description: "Returns the total of a list, set or tuple of numbers.",
	Params:      []function.Parameter{{Name: "numbers", Type: cty.DynamicPseudoType}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		if !(ty.IsListType() || ty.IsSetType() || ty.IsTupleType()) {
			return cty.NilType, function.NewArgErrorf(0, "sum needs a list, set or tuple of numbers, not %s", ty.FriendlyName())
		}
		return cty.Number, nil
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		total := cty.Zero
		i := 0
		for it := args[0].ElementIterator(); it.Next(); i++ {
			_, v := it.Element()
			if v.IsNull() {
				return cty.NilVal, function.NewArgErrorf(0, "element %d is null", i)
			}
			n, err := convert.Convert(v, cty.Number)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "element %d: %s", i, err)
			}
			total = total.Add(n)
		}
		return total, nil
	},
})

// lengthFunc is Terraform's length: the number of characters of a string or
// of elements of a collection or structural value.
var lengthFunc = function.New(&function.Spec{
	Description: "Returns the length of a string, list, map, set, tuple or object.",
	Params: []function.Parameter{{
		Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true, AllowMarked: true,
	}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		switch {
		case ty == cty.String, ty == cty.DynamicPseudoType, ty.IsCollectionType(), ty.IsTupleType(), ty.IsObjectType():
			return cty.Number, nil
		}
		return cty.NilType, function.NewArgErrorf(0, "the value must be a string, collection or structure, not %s", ty.FriendlyName())
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, marks := args[0].Unmark()
		ty := v.Type()
		switch {
		case !v.IsKnown() || ty == cty.DynamicPseudoType:
			return cty.UnknownVal(cty.Number).WithMarks(marks), nil
		case v.IsNull():
			return cty.NilVal, function.NewArgErrorf(0, "the value must not be null")
		case ty == cty.String:
			n, err := stdlib.Strlen(v)
			return n.WithMarks(marks), err
		case ty.IsObjectType():
			return cty.NumberIntVal(int64(len(ty.AttributeTypes()))).WithMarks(marks), nil
		}
		return v.Length().WithMarks(marks), nil
	},
})

func fileFunc(baseDir string, onRead func(string)) function.Function {
	return function.New(&function.Spec{
		Description: "Reads a UTF-8 text file, relative to the flow file's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			rel := args[0].AsString()
			path, err := ResolveLocalPath(baseDir, rel)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "the path %q %v", rel, err)
			}
			if onRead != nil {
				onRead(path)
			}
			info, err := os.Stat(path)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "cannot read %q: %s", rel, unwrapPathError(err))
			}
			if info.Size() > MaxFileFunctionBytes {
				return cty.NilVal, function.NewArgErrorf(0, "%q is larger than %d bytes", rel, MaxFileFunctionBytes)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "cannot read %q: %s", rel, unwrapPathError(err))
			}
			if !utf8.Valid(b) {
				return cty.NilVal, function.NewArgErrorf(0, "%q is not valid UTF-8 text", rel)
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

// ResolveLocalPath joins a path relative to baseDir and refuses absolute
// paths and paths that leave baseDir through "..". Symbolic links inside
// baseDir that point outside it are refused too. Its errors do not quote
// the path, which the caller shows as it may: they complete "the path
// "x" …".
func ResolveLocalPath(baseDir, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", errors.New("must be relative to the flow's directory and stay inside it")
	}
	path := filepath.Join(baseDir, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path, nil // let the read report the missing file
	}
	base, err := filepath.EvalSymlinks(baseDir)
	if err != nil {
		return path, nil
	}
	if r, err := filepath.Rel(base, real); err != nil || !filepath.IsLocal(r) {
		return "", errors.New("leads outside the flow's directory")
	}
	return path, nil
}

// filesetFunc is Terraform's fileset(path, pattern): the regular files
// under the directory path (relative to the flow file's directory) whose
// paths relative to it match pattern, a glob where * and ? stay inside a
// path segment, ** crosses any number of them, and {a,b} and [abc] are
// alternatives and classes (doublestar's syntax, Terraform's). The result
// is a set of paths relative to path, with forward slashes, so sorted; a
// file whose symbolic link leads outside the flow's directory is an error,
// as it is for file().
func filesetFunc(baseDir string, onRead func(string)) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the set of files under a directory, relative to the flow file's directory, whose paths match a glob.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}, {Name: "pattern", Type: cty.String}},
		Type:        function.StaticReturnType(cty.Set(cty.String)),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			rel, pattern := args[0].AsString(), args[1].AsString()
			dir := baseDir
			if rel != "." && rel != "./" {
				var err error
				if dir, err = ResolveLocalPath(baseDir, rel); err != nil {
					return cty.NilVal, function.NewArgErrorf(0, "the path %q %v", rel, err)
				}
			}
			info, err := os.Stat(dir)
			switch {
			case err != nil:
				return cty.NilVal, function.NewArgErrorf(0, "cannot read the directory %q: %s", rel, unwrapPathError(err))
			case !info.IsDir():
				return cty.NilVal, function.NewArgErrorf(0, "%q is a file, not a directory", rel)
			}
			if !doublestar.ValidatePattern(pattern) {
				return cty.NilVal, function.NewArgErrorf(1, "%q is not a valid glob (check its brackets and braces)", pattern)
			}
			if onRead != nil {
				onRead(dir)
			}
			matches, err := doublestar.Glob(os.DirFS(dir), pattern, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
			if err != nil {
				return cty.NilVal, function.NewArgErrorf(0, "cannot list %q: %s", rel, unwrapPathError(err))
			}
			if len(matches) == 0 {
				return cty.SetValEmpty(cty.String), nil
			}
			out := make([]cty.Value, 0, len(matches))
			for _, m := range matches {
				if _, err := ResolveLocalPath(baseDir, filepath.ToSlash(filepath.Join(rel, m))); err != nil {
					return cty.NilVal, function.NewArgErrorf(1, "the file %q %v", m, err)
				}
				out = append(out, cty.StringVal(m))
			}
			return cty.SetVal(out), nil
		},
	})
}
