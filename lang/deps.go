package lang

import (
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// requirementPattern is what a python block's requirement may be: a
// distribution name, extras, and version specifiers (PEP 508 without
// direct references, environment markers or pip options, which would let a
// block file point pip at a URL or change its settings), on one line: it is
// one line of pip's requirements file.
var requirementPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?` +
	`(?:\[[A-Za-z0-9._-]+(?:[ \t]*,[ \t]*[A-Za-z0-9._-]+)*\])?` +
	`(?:[ \t]*(?:===|==|!=|<=|>=|~=|<|>)[ \t]*[A-Za-z0-9.*+!_-]+(?:[ \t]*,[ \t]*(?:===|==|!=|<=|>=|~=|<|>)[ \t]*[A-Za-z0-9.*+!_-]+)*)?$`)

// decodeRequirements decodes a python block's requirements: PEP 508
// requirement strings, each naming a distinct package.
func (def *BlockDef) decodeRequirements(a *hcl.Attribute) hcl.Diagnostics {
	reqs, diags := stringListAttr(a)
	if diags.HasErrors() {
		return diags
	}
	seen := map[string]bool{}
	for _, r := range reqs {
		r = strings.TrimSpace(r)
		if !requirementPattern.MatchString(r) {
			return Error(a.Expr.Range(), "Invalid requirement",
				"The requirement %s is not a package name with optional extras and version specifiers, such as \"numpy==2.1.*\" or \"python-dateutil>=2.9\" (URLs, markers and pip options are not allowed).", quote(r))
		}
		name := RequirementName(r)
		if seen[name] {
			return Error(a.Expr.Range(), "Duplicate requirement",
				"The package %s is required twice; give all its version specifiers in one requirement.", quote(name))
		}
		seen[name] = true
		def.Requirements = append(def.Requirements, r)
	}
	def.RequirementsRange = a.Expr.Range()
	return nil
}

// RequirementName is a requirement's package name, normalized as PEP 503
// does (lower case, runs of -, _ and . as one -).
func RequirementName(req string) string {
	end := strings.IndexFunc(req, func(r rune) bool { return strings.ContainsRune("[=!<>~ ", r) })
	if end < 0 {
		end = len(req)
	}
	return NormalizePackageName(req[:end])
}

// NormalizePackageName normalizes a python package's name (PEP 503).
func NormalizePackageName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r == '-' || r == '_' || r == '.' {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(r)
	}
	return b.String()
}

// RequirementsKey is the canonical form of a set of requirements: the
// same set gives the same key whatever their order and spacing. The lock
// file keeps one entry a key.
func RequirementsKey(reqs []string) string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = strings.Join(strings.Fields(r), "")
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(RequirementName(a), RequirementName(b)) })
	return strings.Join(out, "; ")
}
