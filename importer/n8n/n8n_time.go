package n8n

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/flowctl/flowctl/importer"
)

// n8n's dates: $now, $today and DateTime.now() are luxon DateTimes in the
// workflow's timezone (settings.timezone, else the instance's
// GENERIC_TIMEZONE, America/New_York by default). The language reads no
// clock, so their value comes from goja, in the step that evaluates the
// node's expressions: n8n_time.js gives them, in UTC or in the
// workflow's zone from a table of its offsets that Go's time zone
// database gives here, with the methods and format tokens whose values
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
	if _, why := s.n.timeZone(); why != "" {
		return "", why
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

// n8nZoneFrom and n8nZoneUntil bound the table of a zone's offsets
// written into the flow: a run outside them is an error.
var (
	n8nZoneFrom  = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	n8nZoneUntil = time.Date(2060, 1, 1, 0, 0, 0, 0, time.UTC)
)

// timeZone is the workflow's zone for its dates: nil for UTC (luxon's
// fixed zone), else its offsets; or why it is refused.
func (n *n8n) timeZone() (importer.Expr, string) {
	tz := n.Src.Root.Text("settings", "timezone")
	if tz == "" || tz == "DEFAULT" {
		tz = "America/New_York" // n8n's GENERIC_TIMEZONE unless the instance sets it
	}
	if strings.EqualFold(tz, "UTC") || strings.EqualFold(tz, "GMT") {
		return nil, ""
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Sprintf("the expression reads the time of the run, which n8n gives in the workflow's timezone %q, which is not a zone of the time zone database.", tz)
	}
	var changes []importer.Expr
	until := n8nZoneUntil
	for t := n8nZoneFrom; t.Before(n8nZoneUntil); {
		_, off := t.In(loc).Zone()
		if off%60 != 0 {
			return nil, fmt.Sprintf("the expression reads the time of the run in the workflow's timezone %s, whose offset is not whole minutes.", tz)
		}
		changes = append(changes, importer.Code(fmt.Sprintf("[%d, %d]", t.UnixMilli(), off/60)))
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() {
			break // the zone's last period goes on
		}
		if !end.After(t) || len(changes) > 400 {
			until = t // the offsets after t are not known here
			break
		}
		t = end
	}
	return importer.Object([]importer.Member{
		{Name: "name", Value: importer.Str(tz)},
		{Name: "until", Value: importer.Code(fmt.Sprint(until.UnixMilli()))},
		{Name: "changes", Value: importer.Join("[\n", importer.Join(joinLines(changes)...), "\n]")},
	}), ""
}

func joinLines(es []importer.Expr) []any {
	var out []any
	for i, e := range es {
		if i > 0 {
			out = append(out, ",\n")
		}
		out = append(out, e)
	}
	return out
}

// zoneInput is the zone input of the step that evaluates srcs, when they
// read the time and the workflow's zone is not UTC (nil otherwise). A
// workflow without a timezone is read in n8n's default, with a warning.
func (s *n8nScope) zoneInput(srcs []codeSrc) importer.Expr {
	for _, c := range srcs {
		if !n8nTimeChain.MatchString(c.src) {
			continue
		}
		z, _ := s.n.timeZone()
		if tz := s.n.Src.Root.Text("settings", "timezone"); z != nil && (tz == "" || tz == "DEFAULT") {
			s.n.Warn(s.node.where, c.at, "Dates in America/New_York",
				"the workflow sets no timezone: n8n gives $now and $today in its instance's (GENERIC_TIMEZONE, America/New_York unless set); the flow gives them in America/New_York.")
		}
		return z
	}
	return nil
}
