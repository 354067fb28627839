package thinkevent

// Change is what an edit does, part by part: "step count", "input
// limit", "output total"; a changed step says what changed, as in "step
// read: path, depends_on".
type Change struct {
	Added   []string `json:"added"`
	Changed []string `json:"changed"`
	Removed []string `json:"removed"`
}

// Empty reports whether the change changes nothing.
func (c Change) Empty() bool { return len(c.Added)+len(c.Changed)+len(c.Removed) == 0 }

// Lines are the change as think prints it: "+ step count (count_words)",
// "~ step read: path", "- output old".
func (c Change) Lines() []string {
	var out []string
	for _, g := range []struct {
		mark  string
		items []string
	}{{"+", c.Added}, {"~", c.Changed}, {"-", c.Removed}} {
		for _, it := range g.items {
			out = append(out, g.mark+" "+it)
		}
	}
	return out
}
