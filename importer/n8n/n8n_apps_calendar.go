package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// calendarOps are the operations of the Google Calendar node v1–1.3
// (GoogleCalendar.node.js) converted, by resource.
var calendarOps = map[string][]string{
	"event": {"create"},
}

// calendarFields are Create's additional fields the registry's flow
// sends; calendarQuery those of them n8n puts in a query it keeps from
// item to item (set by one item, sent for the next ones too), converted
// when they are written out, the same for every item.
var (
	calendarFields = map[string]bool{"attendees": true, "color": true, "description": true, "guestsCanInviteOthers": true, "guestsCanModify": true,
		"guestsCanSeeOtherGuests": true, "id": true, "location": true, "summary": true, "showMeAs": true, "visibility": true, "allday": true, "rrule": true}
	calendarQuery = map[string]bool{"sendUpdates": true, "sendNotifications": true, "maxAttendees": true}
)

// googleCalendarNode is the Google Calendar node, for each item: Event →
// Create, its dates read in the workflow's timezone as n8n's moment.tz
// reads them.
func (n *n8n) googleCalendarNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	if a := p.Text("authentication"); a != "" && a != "oAuth2" {
		n.Problem(node.where, p.Get("authentication"), "Unsupported credential",
			"the Google Calendar node's "+a+" authentication is not converted; OAuth2 is.")
		return nil
	}
	if _, _, ok := n.appOperation(node, "Google Calendar", "event", "create", calendarOps); !ok {
		return nil
	}
	s := n.appScope(node, in)
	call := appCall{flow: "google_calendar_event_create", what: "creates the event", cred: "googleCalendarOAuth2Api", oauth2: true}
	_, cal := rlValue(p.Get("calendar"))
	if cal == nil || cal.Kind == 's' && strings.TrimPrefix(cal.Str, "=") == "" {
		n.Problem(node.where, orParams(p.Get("calendar"), node), "Unsupported option", "the node names no calendar; n8n fails the node on it too.")
		return nil
	}
	call.args = append(call.args, importer.Member{Name: "calendar", Value: s.missingNull(cal, s.textValue(cal, "calendar"))})
	for _, k := range []string{"start", "end"} {
		v := p.Get(k)
		if v == nil || v.Kind == 's' && v.Str == "" {
			n.Problem(node.where, orParams(v, node), "Unsupported option", fmt.Sprintf("the node's %s is left to n8n's default (from v1.3 the time of the run, before it none); a date the node gives is converted.", k))
			return nil
		}
		call.args = append(call.args, importer.Member{Name: k, Value: s.missingNull(v, s.textValue(v, k))})
	}
	zone, ok := n.calendarZone(node)
	if !ok {
		return nil
	}
	call.args = append(call.args, importer.Member{Name: "zone", Value: zone})
	var fields []importer.Member
	if f := p.Get("additionalFields"); f != nil {
		for _, k := range f.Keys {
			v := f.Get(k)
			switch {
			case calendarFields[k]:
				fields = append(fields, importer.Member{Name: k, Value: s.looseDeepValue(v, k)})
			case calendarQuery[k]:
				if v.Kind == 's' && strings.HasPrefix(v.Str, "=") {
					n.Problem(node.where, v, "Unsupported expression", fmt.Sprintf("the additional field %s is converted when it is written out: n8n keeps it in a query it sends for the next items too.", k))
					return nil
				}
				fields = append(fields, importer.Member{Name: k, Value: s.value(v, k)})
			default:
				n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("Create's additional field %s is not converted; %s are.", k, strings.Join(importer.SortedKeys(calendarFields), ", ")+", "+strings.Join(importer.SortedKeys(calendarQuery), ", ")))
				return nil
			}
		}
	}
	if len(fields) > 0 {
		call.args = append(call.args, importer.Member{Name: "fields", Value: importer.Object(fields)})
	}
	if def := p.Get("useDefaultReminders"); def != nil && !(def.Kind == 'b' && def.Bool) {
		if def.Kind != 'b' {
			n.Problem(node.where, def, "Unsupported expression", "Use Default Reminders is converted when it is true or false.")
			return nil
		}
		var rem []importer.Member
		if r := p.Get("remindersUi", "remindersValues"); r != nil {
			rem = append(rem, importer.Member{Name: "overrides", Value: s.looseDeepValue(r, "reminders")})
		}
		call.args = append(call.args, importer.Member{Name: "reminders", Value: importer.Object(rem)})
	}
	return n.appStep(node, in, s, call)
}

// calendarZone is the zone n8n reads the node's dates in (its
// getTimezone: the workflow's timezone, else the instance's
// GENERIC_TIMEZONE, America/New_York unless set, with a warning): its
// name and offsets.
func (n *n8n) calendarZone(node *n8nNode) (importer.Expr, bool) {
	z, why := n.timeZone()
	if why != "" {
		n.Problem(node.where, node.params, "Unsupported option", strings.Replace(why, "the expression reads the time of the run", "the node reads its dates", 1))
		return nil, false
	}
	tz := n.Src.Root.Text("settings", "timezone")
	if z == nil {
		return importer.Object([]importer.Member{{Name: "name", Value: importer.Str(tz)}, {Name: "until", Value: importer.Code("0")}, {Name: "changes", Value: importer.Code("[]")}}), true
	}
	if tz == "" || tz == "DEFAULT" {
		n.Warn(node.where, node.params, "Dates in America/New_York",
			"the workflow sets no timezone: n8n reads the event's dates in its instance's (GENERIC_TIMEZONE, America/New_York unless set) and names it to Google Calendar; the flow reads them in America/New_York.")
	}
	return z, true
}

// deepValue is a parameter's value with the expressions in its lists
// and objects resolved too, as n8n's getNodeParameter resolves them.
func (s *n8nScope) deepValue(v *importer.JV, path string) importer.Expr {
	return s.deep(v, path, false)
}

// looseDeepValue is deepValue with a reference to a field the item
// lacks null (n8n's undefined).
func (s *n8nScope) looseDeepValue(v *importer.JV, path string) importer.Expr {
	return s.deep(v, path, true)
}

func (s *n8nScope) deep(v *importer.JV, path string, loose bool) importer.Expr {
	switch {
	case v == nil:
		return importer.Code("null")
	case v.Kind == 'a':
		var es []importer.Expr
		for i, e := range v.Arr {
			es = append(es, s.deep(e, fmt.Sprintf("%s_%d", path, i+1), loose))
		}
		return importer.Tuple(es)
	case v.Kind == 'o':
		var ms []importer.Member
		for _, k := range v.Keys {
			ms = append(ms, importer.Member{Name: k, Value: s.deep(v.Get(k), path+"_"+k, loose)})
		}
		return importer.Object(ms)
	case loose:
		return s.missingNull(v, s.value(v, path))
	}
	return s.value(v, path)
}
