package n8n

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

// n8n's dates: $now, $today and DateTime.now() are luxon DateTimes in the
// workflow's timezone (settings.timezone, else the instance's
// GENERIC_TIMEZONE, America/New_York by default). The language reads no
// clock, so their value comes from goja, in the step that evaluates the
// node's expressions: n8n_time.js gives them in UTC, for the workflows
// whose timezone is UTC, with the methods and format tokens whose values
// do not depend on the locale. The other forms are refused here.

//go:embed n8n_time.js
var n8nTimeJS string

// n8nTimeChain is a DateTime of now and the members read on it.
var n8nTimeChain = regexp.MustCompile(`(\$now\b|\$today\b|\bDateTime\s*\.\s*(?:now|utc|local)\s*\(\s*\))((?:\s*\.\s*[A-Za-z_$][\w$]*(?:\s*\((?:[^()]|\([^()]*\))*\))?)*)`)

var n8nTimeMember = regexp.MustCompile(`\.\s*([A-Za-z_$][\w$]*)(\s*\(((?:[^()]|\([^()]*\))*)\))?`)

// n8nTimeUnits are luxon's units, as Duration.normalizeUnit reads them
// (lower-cased).
var n8nTimeUnits = map[string]bool{"year": true, "years": true, "quarter": true, "quarters": true, "month": true, "months": true, "week": true, "weeks": true, "day": true, "days": true, "hour": true, "hours": true, "minute": true, "minutes": true, "second": true, "seconds": true, "millisecond": true, "milliseconds": true}

// n8nDurationUnits are the other units n8n's plus and minus take with an
// amount (its DURATION_MAP).
var n8nDurationUnits = map[string]bool{"ms": true, "sec": true, "secs": true, "hr": true, "hrs": true, "min": true, "mins": true}

// n8nTimeProps are the DateTime's numbers n8n_time.js has.
var n8nTimeProps = map[string]bool{"year": true, "month": true, "day": true, "hour": true, "minute": true, "second": true, "millisecond": true, "weekday": true, "quarter": true, "zoneName": true, "isValid": true}

// n8nTimeCalls are its methods without arguments.
var n8nTimeCalls = map[string]bool{"toISO": true, "toISODate": true, "toMillis": true, "toSeconds": true, "toUnixInteger": true, "toUTC": true, "valueOf": true, "toString": true, "toJSON": true}

var (
	n8nQuoted     = regexp.MustCompile(`^\s*(?:'([^'\\]*)'|"([^"\\]*)")\s*$`)
	n8nAmountUnit = regexp.MustCompile(`^[^{}]+,\s*(?:'(\w+)'|"(\w+)")\s*$`)
	n8nUnitsObj   = regexp.MustCompile(`^\s*\{([^{}]*)\}\s*$`)
	n8nUnitKey    = regexp.MustCompile(`^\s*(?:(\w+)|'(\w+)'|"(\w+)")\s*:\s*[^:]+$`)
)

// n8nTime checks src's dates: it returns src without them, for the check
// of the names goja's adapter has, or why one is refused.
func (s *n8nScope) n8nTime(src string) (rest, reason string) {
	if !n8nTimeChain.MatchString(src) {
		return src, ""
	}
	if tz := s.n.Src.Root.Text("settings", "timezone"); !strings.EqualFold(tz, "UTC") && !strings.EqualFold(tz, "GMT") {
		if tz == "" {
			tz = "none (n8n's GENERIC_TIMEZONE, America/New_York by default)"
		}
		return "", fmt.Sprintf("the expression reads the time of the run, which n8n gives in the workflow's timezone, here %s; flowctl's evaluation of n8n's dates has UTC only (set the workflow's timezone to UTC to import it).", tz)
	}
	for _, m := range n8nTimeChain.FindAllStringSubmatch(src, -1) {
		for _, mem := range n8nTimeMember.FindAllStringSubmatch(m[2], -1) {
			if why := n8nTimeMemberProblem(mem[1], mem[2] != "", mem[3]); why != "" {
				return "", fmt.Sprintf("the expression uses %s.%s: %s", strings.TrimSpace(m[1]), mem[1], why)
			}
		}
	}
	return n8nTimeChain.ReplaceAllString(src, "0"), ""
}

// n8nTimeMemberProblem is why a member of a DateTime is refused, "" when
// n8n_time.js gives n8n's value.
func n8nTimeMemberProblem(name string, call bool, args string) string {
	if !call {
		if n8nTimeProps[name] {
			return ""
		}
		return "flowctl's evaluation of n8n's dates does not have it (it has year, month, day, hour, minute, second, millisecond, weekday, quarter and methods)."
	}
	switch {
	case n8nTimeCalls[name]:
		if strings.TrimSpace(args) != "" {
			return "it is converted without arguments."
		}
		return ""
	case name == "plus" || name == "minus":
		if m := n8nAmountUnit.FindStringSubmatch(args); m != nil {
			u := m[1] + m[2]
			if !n8nTimeUnits[strings.ToLower(u)] && !n8nDurationUnits[u] {
				return fmt.Sprintf("the unit %q is not one of luxon's.", u)
			}
			return ""
		}
		if m := n8nUnitsObj.FindStringSubmatch(args); m != nil {
			for _, kv := range strings.Split(m[1], ",") {
				if strings.TrimSpace(kv) == "" {
					continue
				}
				k := n8nUnitKey.FindStringSubmatch(kv)
				if k == nil || !n8nTimeUnits[strings.ToLower(k[1]+k[2]+k[3])] {
					return fmt.Sprintf("%q is not a unit of luxon's written out.", strings.TrimSpace(kv))
				}
			}
			return ""
		}
		return "it is converted with an object of units ({days: 7}) or an amount and a unit ('days') written out."
	case name == "startOf" || name == "endOf":
		if m := n8nQuoted.FindStringSubmatch(args); m != nil && n8nTimeUnits[strings.ToLower(m[1]+m[2])] {
			return ""
		}
		return "it is converted with a unit of luxon's written out ('day')."
	case name == "toFormat" || name == "format":
		m := n8nQuoted.FindStringSubmatch(args)
		if m == nil {
			return "it is converted with a format written out as one string (no locale options)."
		}
		for _, tok := range luxonFormatTokens(m[1] + m[2]) {
			if luxonLocaleTokens[tok] {
				return fmt.Sprintf("the token %q is written in the locale of n8n's server, which could differ.", tok)
			}
			if luxonOtherTokens[tok] {
				return fmt.Sprintf("the token %q is not converted.", tok)
			}
		}
		return ""
	case name == "toLocaleString" || name == "toLocaleParts" || name == "setLocale" || name == "toRelative" || name == "toRelativeCalendar" || name == "toHTTP" || name == "toRFC2822":
		return "its text is in the locale of n8n's server, which could differ."
	}
	return "flowctl's evaluation of n8n's dates does not have it."
}

// luxonLocaleTokens are luxon's format tokens written from the locale:
// names of months, days, eras and zones, meridiems and the macros.
var luxonLocaleTokens = setOf("a", "ccc", "cccc", "ccccc", "EEE", "EEEE", "EEEEE", "LLL", "LLLL", "LLLLL", "MMM", "MMMM", "MMMMM", "G", "GG", "GGGGG", "ZZZZ", "ZZZZZ",
	"D", "DD", "DDD", "DDDD", "t", "tt", "ttt", "tttt", "T", "TT", "TTT", "TTTT", "f", "ff", "fff", "ffff", "F", "FF", "FFF", "FFFF")

// luxonOtherTokens are luxon's tokens n8n_time.js does not have: weeks.
var luxonOtherTokens = setOf("kk", "kkkk", "W", "WW", "n", "nn", "ii", "iiii")

func setOf(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// luxonFormatTokens are the tokens of a format, as luxon's
// Formatter.parseFormat cuts it: runs of one character outside quotes.
func luxonFormatTokens(format string) []string {
	var out []string
	var cur strings.Builder
	var current rune = -1
	bracketed := false
	flush := func() {
		if cur.Len() > 0 && !bracketed && strings.TrimSpace(cur.String()) != "" {
			out = append(out, cur.String())
		}
		cur.Reset()
	}
	for _, c := range format {
		switch {
		case c == '\'':
			flush()
			current = -1
			bracketed = !bracketed
		case bracketed:
			cur.WriteRune(c)
		case c == current:
			cur.WriteRune(c)
		default:
			flush()
			cur.WriteRune(c)
			current = c
		}
	}
	flush()
	return out
}
