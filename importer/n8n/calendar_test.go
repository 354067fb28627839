package n8n_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Google Calendar's Create, for each item, in the workflow's timezone
// (America/New_York when it sets none, with a warning). The node of
// oxbshw+ultimate-n8n-ai-workflows/New_Workflow__Calendar_Booking.json,
// its item a webhook's query here.
func TestGoogleCalendarCreateImported(t *testing.T) {
	item := `{"parameters": {"jsCode": "return [{json: {query: {date: '2024-12-30T15:00:00', email: 'ann@x.org', name: 'Ann', Description: 'Haircut', time: '3pm'}}}]"}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [100, 0]}`
	node := `{"parameters": {"calendar": {"__rl": true, "value": "4cfc415a246d11c9883b8f92be375a2ec1d29aed01c040fe8a3946a9bfcdd028@group.calendar.google.com", "mode": "list", "cachedResultName": "G-serices Booking Calendar"}, "start": "={{ $json.query.date }}", "end": "2024-12-31T00:00:00", "additionalFields": {"attendees": ["={{ $json.query.email }}"], "description": "={{ $json.query.Description }} with {{ $json.query.name }} email: {{ $json.query.email }} time {{ $json.query.time }}", "sendUpdates": "all"}}, "id": "2973d558-7ce6-4aa9-8fff-877894757d48", "name": "Google Calendar", "type": "n8n-nodes-base.googleCalendar", "typeVersion": 1.2, "position": [560, 220], "credentials": {"googleCalendarOAuth2Api": {"id": "1", "name": "Google Calendar account"}}}`
	files, diags := importApp(t, appWorkflow(t, "booking", item, node))
	wantDiags(t, diags, "warning /nodes/2/parameters Dates in America/New_York", "warning /nodes/2/credentials/googleCalendarOAuth2Api OAuth2 access token")
	wantIn(t, files["booking.flow.hcl"], `  use      = "flow.google_calendar_event_create"
  for_each = step.item.items
  calendar = "4cfc415a246d11c9883b8f92be375a2ec1d29aed01c040fe8a3946a9bfcdd028@group.calendar.google.com"
  start    = try(each.value.query.date, null)
  end      = "2024-12-31T00:00:00"
  zone = {`)
	srv, reqs := standIn(t, func(r *http.Request) string { return `{"id": "ev1", "status": "confirmed"}` })
	out := runImported(t, files, "booking", map[string]string{"google_calendar": "ya29.token"}, srv.URL)
	wantJSON(t, "items", out["google_calendar"], `[{"id": "ev1", "status": "confirmed"}]`)
	// The request n8n's create sends for the item (n8n 2.8.4's code run
	// with node, in America/New_York).
	want := `POST /calendar/v3/calendars/4cfc415a246d11c9883b8f92be375a2ec1d29aed01c040fe8a3946a9bfcdd028%40group.calendar.google.com/events?sendUpdates=all {"start":{"dateTime":"2024-12-30T20:00:00Z","timeZone":"America/New_York"},"end":{"dateTime":"2024-12-31T05:00:00Z","timeZone":"America/New_York"},"attendees":[{"email":"ann@x.org"}],"description":"Haircut with Ann email: ann@x.org time 3pm","recurrence":[]}`
	if len(*reqs) != 1 || !sameRequest(t, (*reqs)[0], want) {
		t.Errorf("requests: %q\nwant %s", *reqs, want)
	}

	// As in the corpus's workflow, the manual trigger's empty item: the
	// fields the node reads are null (n8n's undefined), the flow valid,
	// and its run fails on the missing start (n8n reads it as the time
	// of the run).
	files, _ = importApp(t, appWorkflow(t, "booking", node))
	wantIn(t, files["booking.flow.hcl"], `attendees   = [try(each.value.query.email, null)]`)
	srv, _ = standIn(t, func(r *http.Request) string { return `{}` })
	if _, failed := runImportedErr(t, files, "booking", map[string]string{"google_calendar": "ya29.token"}, srv.URL); !strings.Contains(failed, "the start is missing") {
		t.Errorf("the run: %s", failed)
	}

	// A workflow in UTC reads the dates in UTC, without the warning; an
	// additional field given by an expression that n8n keeps for the next
	// items, and one not converted, are refused.
	files, diags = importApp(t, []byte(strings.Replace(string(appWorkflow(t, "booking", item, node)), `"nodes"`, `"settings": {"timezone": "UTC"}, "nodes"`, 1)))
	wantDiags(t, diags, "warning /nodes/2/credentials/googleCalendarOAuth2Api OAuth2 access token")
	wantIn(t, files["booking.flow.hcl"], `  zone = {
    name    = "UTC"
    until   = 0
    changes = []
  }`)
	for _, c := range []struct{ from, to, at, summary string }{
		{`"sendUpdates": "all"`, `"sendUpdates": "={{ $json.query.notify }}"`, "/nodes/2/parameters/additionalFields/sendUpdates", "Unsupported expression"},
		{`"sendUpdates": "all"`, `"conferenceDataUi": {"conferenceDataValues": {"conferenceSolution": "hangoutsMeet"}}`, "/nodes/2/parameters/additionalFields/conferenceDataUi", "Unsupported option"},
	} {
		_, diags := importApp(t, appWorkflow(t, "booking", item, strings.Replace(node, c.from, c.to, 1)))
		wantDiags(t, diags, "warning /nodes/2/parameters Dates in America/New_York", "error "+c.at+" "+c.summary)
	}
}

// sameRequest compares a stand-in's line "METHOD PATH?QUERY BODY" with
// want's, the bodies as JSON values.
func sameRequest(t *testing.T, got, want string) bool {
	t.Helper()
	g1, g2, _ := strings.Cut(got, " {")
	w1, w2, _ := strings.Cut(want, " {")
	var a, b any
	json.Unmarshal([]byte("{"+g2), &a)
	json.Unmarshal([]byte("{"+w2), &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return g1 == w1 && string(ja) == string(jb)
}
