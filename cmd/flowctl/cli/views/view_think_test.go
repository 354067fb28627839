package views

import (
	"testing"

	"github.com/flowctl/flowctl/lang"
)

// TestNextCommand: the command think suggests works as written: it
// carries the --registry flags, quoted for the shell where needed, and a
// placeholder for each input the flow requires and each secret.
func TestNextCommand(t *testing.T) {
	flow := `flow "f" {}

input "text" {
  type = string
}

input "n" {
  type = number
}

input "opts" {
  type = object({ loud = bool, tags = list(string), note = optional(string) })
}

input "fine" {
  type    = string
  default = "x"
}

secret "token" {
  env = "F_TOKEN"
}
`
	p := lang.NewParser()
	if _, diags := p.ParseSource([]byte(flow), "my flows/n.flow.hcl"); diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, c := range []struct {
		file       string
		registries []string
		want       string
	}{
		{"notes.flow.hcl", nil, "flowctl plan notes.flow.hcl"},
		{"out/notes.flow.hcl", []string{"../lib", "/srv/blocks-2"}, "flowctl plan out/notes.flow.hcl --registry ../lib --registry /srv/blocks-2"},
		{"my flows/n.flow.hcl", []string{"it's", "~/reg", "$HOME"}, `flowctl plan 'my flows/n.flow.hcl' --input text=TEXT --input n=0 --input 'opts={
  loud = false
  tags = []
}' --secret token=TOKEN --registry 'it'\''s' --registry '~/reg' --registry '$HOME'`},
	} {
		if got := nextCommand(c.file, p.Files(), c.registries); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
