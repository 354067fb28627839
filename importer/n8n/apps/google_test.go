package apps

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Gmail's Get Many, Simplify on, with Return All: the pages of the list
// (following nextPageToken), each message's metadata, the labels; the
// items are the messages simplified. The requests' queries and the items
// are those n8n's GmailV2 getAll gives on the same answers (n8n 2.8.4's
// code run with node).
func TestGmailMessageGetMany(t *testing.T) {
	var mu sync.Mutex
	pages := []string{`{"messages": [{"id": "m1", "threadId": "t1"}], "nextPageToken": "p2", "resultSizeEstimate": 2}`, `{"messages": [{"id": "m2", "threadId": "t2"}]}`}
	reply := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/gmail/v1/users/me/messages":
			mu.Lock()
			io.WriteString(w, pages[0])
			pages = pages[1:]
			mu.Unlock()
		case "/gmail/v1/users/me/messages/m1":
			io.WriteString(w, `{"id":"m1","threadId":"t1","labelIds":["UNREAD","INBOX"],"snippet":"Tom &amp; Jerry &lt;3 &amp;lt; &#39;hi&#39;","payload":{"partId":"","mimeType":"text/plain","headers":[{"name":"From","value":"A <a@x.org>"},{"name":"Subject","value":"Hello"},{"name":"To","value":"me@x.org"}]},"sizeEstimate":1200,"historyId":"99","internalDate":"1700000000000"}`)
		case "/gmail/v1/users/me/messages/m2":
			io.WriteString(w, `{"id":"m2","threadId":"t2","labelIds":[],"snippet":"","payload":{"mimeType":"text/html"},"sizeEstimate":5,"historyId":"100","internalDate":"1700000000001"}`)
		case "/gmail/v1/users/me/labels":
			io.WriteString(w, `{"labels":[{"id":"INBOX","name":"INBOX","type":"system"},{"id":"Label_1","name":"Work","type":"user"},{"id":"UNREAD","name":"UNREAD","type":"system"}]}`)
		}
	}
	out, reqs := runFlow(t, "gmail_message_get_many", map[string]any{"return_all": true, "q": "is:unread newer_than:1d", "sender": "a@x.org",
		"read_status": "unread", "label_ids": []string{"INBOX", "Label_1"}}, reply)
	wantItems(t, out, `[{"id":"m1","threadId":"t1","snippet":"Tom & Jerry <3 &lt; 'hi'","payload":{"partId":"","mimeType":"text/plain"},"sizeEstimate":1200,"historyId":"99","internalDate":"1700000000000","labels":[{"id":"INBOX","name":"INBOX"},{"id":"UNREAD","name":"UNREAD"}],"From":"A <a@x.org>","Subject":"Hello","To":"me@x.org"},
		{"id":"m2","threadId":"t2","snippet":"","payload":{"mimeType":"text/html"},"sizeEstimate":5,"historyId":"100","internalDate":"1700000000001","labels":[]}]`)
	// n8n's requests, each query as a set of parameters.
	want := []string{
		"GET /gmail/v1/users/me/messages q=is%3Aunread%20newer_than%3A1d%20from%3Aa%40x.org%20is%3Aunread&labelIds=INBOX&labelIds=Label_1&maxResults=100",
		"GET /gmail/v1/users/me/messages q=is%3Aunread%20newer_than%3A1d%20from%3Aa%40x.org%20is%3Aunread&labelIds=INBOX&labelIds=Label_1&maxResults=100&pageToken=p2",
		"GET /gmail/v1/users/me/messages/m1 q=is%3Aunread%20newer_than%3A1d%20from%3Aa%40x.org%20is%3Aunread&labelIds=INBOX&labelIds=Label_1&maxResults=100&format=metadata&metadataHeaders=From&metadataHeaders=To&metadataHeaders=Cc&metadataHeaders=Bcc&metadataHeaders=Subject",
		"GET /gmail/v1/users/me/messages/m2 q=is%3Aunread%20newer_than%3A1d%20from%3Aa%40x.org%20is%3Aunread&labelIds=INBOX&labelIds=Label_1&maxResults=100&format=metadata&metadataHeaders=From&metadataHeaders=To&metadataHeaders=Cc&metadataHeaders=Bcc&metadataHeaders=Subject",
		"GET /gmail/v1/users/me/labels ",
	}
	var got, wanted []string
	for _, r := range reqs {
		if r.Auth != "Bearer ya29.token" {
			t.Errorf("%s: authorization %q", r.Path, r.Auth)
		}
		got = append(got, r.Method+" "+r.Path+" "+queryKey(t, r.Query))
	}
	for _, w := range want {
		m, p, _ := strings.Cut(w, " ")
		p, q, _ := strings.Cut(p, " ")
		wanted = append(wanted, m+" "+p+" "+queryKey(t, q))
	}
	slices.Sort(got)
	slices.Sort(wanted)
	if !reflect.DeepEqual(got, wanted) {
		t.Errorf("requests:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wanted, "\n"))
	}

	// Without Return All: one page of limit, no labels filter.
	pages = []string{`{"resultSizeEstimate": 0}`}
	out, reqs = runFlow(t, "gmail_message_get_many", map[string]any{"limit": 25, "q": "is:unread"}, reply)
	wantItems(t, out, `[]`)
	slices.SortFunc(reqs, func(a, b apiRequest) int { return strings.Compare(b.Path, a.Path) })
	if len(reqs) != 2 || reqs[0].Path != "/gmail/v1/users/me/messages" || reqs[0].Query != "maxResults=25&q=is%3Aunread" {
		t.Errorf("requests: %+v", reqs)
	}
}

// queryKey is a query's parameters, sorted (n8n's and the flow's order
// differ), values decoded.
func queryKey(t *testing.T, q string) string {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		for _, x := range v[k] {
			out = append(out, k+"="+x)
		}
	}
	return strings.Join(out, "&")
}

// Google Calendar's Create: POST …/calendars/ID/events, the start and
// end in UTC with the zone's name (a date without an offset read in the
// zone), the additional fields and the reminders; an all-day event's
// dates in the zone. The requests are those n8n's create sends for the
// same items in America/New_York (n8n 2.8.4's code run with node).
func TestGoogleCalendarEventCreate(t *testing.T) {
	zone := map[string]any{"name": "America/New_York", "until": 1767225600000, // 2026-01-01
		"changes": [][]int64{{1577836800000, -300}, {1710054000000, -240}, {1730613600000, -300}, {1741503600000, -240}, {1762063200000, -300}}}
	reply := replyJSON(`{"id": "ev1", "status": "confirmed"}`)
	out, reqs := runFlow(t, "google_calendar_event_create", map[string]any{"calendar": "c_57%40group.calendar.google.com",
		"start": "2024-12-31 10:30", "end": "2024-12-31T00:00:00", "zone": zone,
		"fields": map[string]any{"attendees": []string{"a@x.org, b@y.org", "c@z.org"}, "description": "Call", "sendUpdates": "all", "summary": "Hi", "color": "3", "showMeAs": "transparent"}}, reply)
	wantItems(t, out, `[{"id": "ev1", "status": "confirmed"}]`)
	wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/calendar/v3/calendars/c_57%40group.calendar.google.com/events", Query: "sendUpdates=all", Type: "application/json",
		Body: `{"attendees":[{"email":"a@x.org"},{"email":"b@y.org"},{"email":"c@z.org"}],"colorId":"3","description":"Call","end":{"dateTime":"2024-12-31T05:00:00Z","timeZone":"America/New_York"},"recurrence":[],"start":{"dateTime":"2024-12-31T15:30:00Z","timeZone":"America/New_York"},"summary":"Hi","transparency":"transparent"}`})

	_, reqs = runFlow(t, "google_calendar_event_create", map[string]any{"calendar": "me@x.org",
		"start": "2024-07-01T09:00:00+02:00", "end": "2024-07-01T10:00:00.500Z", "zone": zone, "reminders": map[string]any{"overrides": []map[string]any{{"method": "popup", "minutes": 10}}},
		"fields": map[string]any{"allday": "yes", "rrule": "FREQ=WEEKLY;COUNT=3", "guestsCanModify": true}}, reply)
	if got := reqs[0].Path + " " + reqs[0].Body; got != `/calendar/v3/calendars/me%40x.org/events {"end":{"date":"2024-07-01"},"guestsCanModify":true,"recurrence":["RRULE:FREQ=WEEKLY;COUNT=3"],"reminders":{"overrides":[{"method":"popup","minutes":10}],"useDefault":false},"start":{"date":"2024-07-01"}}` {
		t.Errorf("all day: %s", got)
	}

	// A local time a daylight-saving change skips, and a date moment
	// would read otherwise, fail the run.
	for _, start := range []string{"2024-03-10T02:30:00", "12/31/2024 10:30"} {
		_, _, failed := tryFlow(t, "google_calendar_event_create", map[string]any{"calendar": "me@x.org", "start": start, "end": "2024-12-31T00:00:00Z", "zone": zone}, reply)
		if failed == "" {
			t.Errorf("start %s: the run did not fail", start)
		}
	}
}

// Google Drive's Search: GET /drive/v3/files with the query n8n's search
// builds of the search and the filter, the fields and the drives
// searched, every page with Return All. Each case's queries are those
// n8n's search.operation sends for the same parameters (n8n 2.8.4's code
// run with node).
func TestGoogleDriveSearch(t *testing.T) {
	for _, c := range []struct {
		inputs  map[string]any
		answers []string
		queries []string
		items   string
	}{{
		inputs: map[string]any{"search_method": "query", "query_string": "name = 'x'", "return_all": true, "filter": true, "drive_id": "My Drive", "folder_id": "test-whatsapp",
			"file_types": []string{"application/pdf", "text/plain"}, "fields": []string{"webViewLink", "id", "name"}},
		answers: []string{`{"files":[{"id":"f1","name":"a"}],"nextPageToken":"p2"}`, `{"files":[{"id":"f2","name":"b"}]}`},
		queries: []string{
			`{"fields":"nextPageToken, files(webViewLink, id, name)","q":"name = 'x' and 'test-whatsapp' in parents and trashed = false and (mimeType = 'application/pdf' or mimeType = 'text/plain')","includeItemsFromAllDrives":false,"supportsAllDrives":false,"spaces":"appDataFolder, drive","corpora":"user","maxResults":100,"pageSize":100}`,
			`{"fields":"nextPageToken, files(webViewLink, id, name)","q":"name = 'x' and 'test-whatsapp' in parents and trashed = false and (mimeType = 'application/pdf' or mimeType = 'text/plain')","includeItemsFromAllDrives":false,"supportsAllDrives":false,"spaces":"appDataFolder, drive","corpora":"user","maxResults":100,"pageSize":100,"pageToken":"p2"}`},
		items: `[{"id":"f1","name":"a"},{"id":"f2","name":"b"}]`,
	}, {
		inputs:  map[string]any{"filter": true, "folder_id": "root"},
		answers: []string{`{"files":[]}`},
		queries: []string{`{"fields":"nextPageToken, files(id, name)","q":"name contains '' and trashed = false","includeItemsFromAllDrives":false,"supportsAllDrives":false,"spaces":"drive","corpora":"user","pageSize":50}`},
		items:   `[]`,
	}, {
		inputs:  map[string]any{"query_string": "rep", "limit": 7, "filter": true, "drive_id": "0AGL", "what_to_search": "folders", "include_trashed": true, "fields": []string{"*"}},
		answers: []string{`{"files":[{"id":"d"}]}`},
		queries: []string{`{"fields":"nextPageToken, files(*)","q":"name contains 'rep' and mimeType = 'application/vnd.google-apps.folder'","includeItemsFromAllDrives":true,"supportsAllDrives":true,"spaces":"appDataFolder, drive","corpora":"drive","driveId":"0AGL","pageSize":7}`},
		items:   `[{"id":"d"}]`,
	}} {
		var mu sync.Mutex
		answers := c.answers
		out, reqs := runFlow(t, "google_drive_search", c.inputs, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, answers[0])
			answers = answers[1:]
		})
		wantItems(t, out, c.items)
		var got, want []string
		for _, r := range reqs {
			if r.Path != "/drive/v3/files" || r.Auth != "Bearer ya29.token" {
				t.Errorf("request %+v", r)
			}
			got = append(got, queryKey(t, r.Query))
		}
		for _, q := range c.queries {
			var m map[string]any
			json.Unmarshal([]byte(q), &m)
			v := url.Values{}
			for k, x := range m {
				v.Set(k, fmt.Sprint(x))
			}
			want = append(want, queryKey(t, v.Encode()))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("queries:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
