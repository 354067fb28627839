package cli

import "testing"

func TestPlanCommand(t *testing.T) {
	for _, c := range []struct {
		file       string
		registries []string
		want       string
	}{
		{"notes.flow.hcl", nil, "flowctl plan notes.flow.hcl"},
		{"out/notes.flow.hcl", []string{"../lib", "/srv/blocks-2"}, "flowctl plan out/notes.flow.hcl --registry ../lib --registry /srv/blocks-2"},
		{"my flows/n.flow.hcl", []string{"it's", "~/reg", "$HOME"}, `flowctl plan 'my flows/n.flow.hcl' --registry 'it'\''s' --registry '~/reg' --registry '$HOME'`},
	} {
		if got := planCommand(c.file, c.registries); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
