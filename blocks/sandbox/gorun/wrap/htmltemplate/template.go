// Package template is html/template as go blocks see it: the same
// functions, types and constants, but a Template without the methods that
// read files (ParseFiles, ParseGlob, ParseFS) and without its parse tree,
// as package texttemplate does for text/template (see there why).
package template

import (
	"html/template"
	"io"
)

type (
	// CSS is html/template's CSS.
	CSS = template.CSS
	// Error is html/template's Error.
	Error = template.Error
	// ErrorCode is html/template's ErrorCode.
	ErrorCode = template.ErrorCode
	// FuncMap is html/template's FuncMap.
	FuncMap = template.FuncMap
	// HTML is html/template's HTML.
	HTML = template.HTML
	// HTMLAttr is html/template's HTMLAttr.
	HTMLAttr = template.HTMLAttr
	// JS is html/template's JS.
	JS = template.JS
	// JSStr is html/template's JSStr.
	JSStr = template.JSStr
	// Srcset is html/template's Srcset.
	Srcset = template.Srcset
	// URL is html/template's URL.
	URL = template.URL
)

// The error codes of html/template.
const (
	OK                   = template.OK
	ErrAmbigContext      = template.ErrAmbigContext
	ErrBadHTML           = template.ErrBadHTML
	ErrBranchEnd         = template.ErrBranchEnd
	ErrEndContext        = template.ErrEndContext
	ErrJSTemplate        = template.ErrJSTemplate
	ErrNoSuchTemplate    = template.ErrNoSuchTemplate
	ErrOutputContext     = template.ErrOutputContext
	ErrPartialCharset    = template.ErrPartialCharset
	ErrPartialEscape     = template.ErrPartialEscape
	ErrPredefinedEscaper = template.ErrPredefinedEscaper
	ErrRangeLoopReentry  = template.ErrRangeLoopReentry
	ErrSlashAmbig        = template.ErrSlashAmbig
)

// Template is an html/template Template that cannot read files.
type Template struct{ t *template.Template }

func wrap(t *template.Template) *Template {
	if t == nil {
		return nil
	}
	return &Template{t}
}

// New allocates a new HTML template with the given name.
func New(name string) *Template { return wrap(template.New(name)) }

// Must panics when err is not nil, and returns t otherwise.
func Must(t *Template, err error) *Template {
	if err != nil {
		panic(err)
	}
	return t
}

// HTMLEscape writes to w the escaped HTML equivalent of b.
func HTMLEscape(w io.Writer, b []byte) { template.HTMLEscape(w, b) }

// HTMLEscapeString returns the escaped HTML equivalent of s.
func HTMLEscapeString(s string) string { return template.HTMLEscapeString(s) }

// HTMLEscaper returns the escaped HTML equivalent of its arguments.
func HTMLEscaper(args ...any) string { return template.HTMLEscaper(args...) }

// IsTrue reports whether the value is true, as a template's if sees it.
func IsTrue(val any) (truth, ok bool) { return template.IsTrue(val) }

// JSEscape writes to w the escaped JavaScript equivalent of b.
func JSEscape(w io.Writer, b []byte) { template.JSEscape(w, b) }

// JSEscapeString returns the escaped JavaScript equivalent of s.
func JSEscapeString(s string) string { return template.JSEscapeString(s) }

// JSEscaper returns the escaped JavaScript equivalent of its arguments.
func JSEscaper(args ...any) string { return template.JSEscaper(args...) }

// URLQueryEscaper returns its arguments escaped for a URL query.
func URLQueryEscaper(args ...any) string { return template.URLQueryEscaper(args...) }

// Clone returns a duplicate of the template and its associated templates.
func (t *Template) Clone() (*Template, error) {
	c, err := t.t.Clone()
	return wrap(c), err
}

// DefinedTemplates lists the defined templates, for error messages.
func (t *Template) DefinedTemplates() string { return t.t.DefinedTemplates() }

// Delims sets the action delimiters.
func (t *Template) Delims(left, right string) *Template {
	t.t.Delims(left, right)
	return t
}

// Execute applies the template to data, writing the output to w.
func (t *Template) Execute(w io.Writer, data any) error { return t.t.Execute(w, data) }

// ExecuteTemplate applies the associated template name to data.
func (t *Template) ExecuteTemplate(w io.Writer, name string, data any) error {
	return t.t.ExecuteTemplate(w, name, data)
}

// Funcs adds the functions of funcMap to the template's function map.
func (t *Template) Funcs(funcMap FuncMap) *Template {
	t.t.Funcs(funcMap)
	return t
}

// Lookup returns the associated template name, or nil.
func (t *Template) Lookup(name string) *Template { return wrap(t.t.Lookup(name)) }

// Name returns the template's name.
func (t *Template) Name() string { return t.t.Name() }

// New allocates a new template associated with t.
func (t *Template) New(name string) *Template { return wrap(t.t.New(name)) }

// Option sets options of the template ("missingkey=error", …).
func (t *Template) Option(opt ...string) *Template {
	t.t.Option(opt...)
	return t
}

// Parse parses text as a template body for t.
func (t *Template) Parse(text string) (*Template, error) {
	if _, err := t.t.Parse(text); err != nil {
		return nil, err
	}
	return t, nil
}

// Templates returns the templates associated with t.
func (t *Template) Templates() []*Template {
	var out []*Template
	for _, x := range t.t.Templates() {
		out = append(out, wrap(x))
	}
	return out
}
