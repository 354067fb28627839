package importer

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Snake turns a name from a source ("Get Weather", "getWeather",
// "HTTP Request", "Café-2") into a flowctl name: lower case, words joined
// by underscores, accents dropped, other characters left out. A name that
// starts with a digit gets a leading underscore. An empty result means
// nothing usable was left.
func Snake(s string) string {
	var b strings.Builder
	runes := []rune(norm.NFD.String(s))
	prevSep := true
	for i, r := range runes {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if unicode.IsUpper(r) && !prevSep && i > 0 {
				prev := runes[i-1]
				nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			prevSep = false
		default:
			if !prevSep {
				b.WriteByte('_')
			}
			prevSep = true
		}
	}
	out := strings.Trim(b.String(), "_")
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = "_" + out
	}
	return out
}

// Credentials. A header is taken for a credential when its name or its
// value says so; its value then becomes a secret.
var (
	credentialHeader = regexp.MustCompile(`(?i)^(authorization|proxy-authorization|cookie|x-[a-z0-9-]*(key|token|secret|auth)[a-z0-9-]*|[a-z0-9_-]*(api[-_]?key|apikey|access[-_]?token|auth[-_]?token|secret|password|passwd)[a-z0-9_-]*)$`)
	credentialValue  = regexp.MustCompile(`^(?i:(bearer|basic|token|bot|digest)\s+\S{4,})|^(sk|pk|rk|xox[abpr]|ghp|gho|github_pat|glpat|AKIA)[-_A-Za-z0-9]{6,}`)
	CredentialName   = regexp.MustCompile(`(?i)(api[-_ ]?key|apikey|token|secret|password|passwd|credential|bearer)`)
	authScheme       = regexp.MustCompile(`^(?i:(bearer|basic|token|bot|digest))(\s+)(.+)$`)
)

// isCredentialHeader reports whether a header with this name and literal
// value holds a credential.
func IsCredentialHeader(name, value string) bool {
	return credentialHeader.MatchString(strings.TrimSpace(name)) || LooksLikeCredential(value)
}

// looksLikeCredential reports whether a value has the shape of a token.
func LooksLikeCredential(value string) bool {
	return credentialValue.MatchString(strings.TrimSpace(value))
}

// splitScheme splits "Bearer TOKEN" into "Bearer " and "TOKEN"; a value
// without an authorization scheme is all token.
func SplitScheme(value string) (scheme, token string) {
	if m := authScheme.FindStringSubmatch(value); m != nil {
		return m[1] + m[2], m[3]
	}
	return "", value
}
