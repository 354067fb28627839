package apps

import (
	"io"
	"net/http"
	"net/url"
	"testing"
)

// Search as n8n's Airtable node v2.1 sends it (search.operation.js,
// transport apiRequestAllItems): GET /v0/BASE/TABLE with the formula,
// the fields and sort as qs writes them (fields[0]=…), the token as a
// bearer; every page of 100 following offset, or one request of
// maxRecords with a limit. Each item is a record's id and createdTime
// with its fields (flattenOutput).
func TestAirtableRecordSearch(t *testing.T) {
	pages := map[string]string{
		"":     `{"records": [{"id": "rec1", "createdTime": "2024-05-01T10:00:00.000Z", "fields": {"Email": "a@x.org", "Score": 3}}], "offset": "itr2"}`,
		"itr2": `{"records": [{"id": "rec2", "createdTime": "2024-05-02T10:00:00.000Z", "fields": {}}], "offset": "itr3"}`,
		"itr3": `{"records": [{"id": "rec3", "createdTime": "2024-05-03T10:00:00.000Z", "fields": {"Email": "c@x.org"}}]}`,
	}
	reply := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, pages[r.URL.Query().Get("offset")])
	}
	inputs := map[string]any{"base": "appL3dptT6ZTSzY9v", "table": "tblzR9vSuFUzlQNMI", "filter_by_formula": "{Email} = 'a@x.org'",
		"fields": []string{"Email", "Score"}, "sort": []map[string]string{{"field": "Score", "direction": "desc"}}}
	out, reqs := runFlow(t, "airtable_record_search", inputs, reply)
	query := url.Values{"filterByFormula": {"{Email} = 'a@x.org'"}, "fields[0]": {"Email"}, "fields[1]": {"Score"},
		"sort[0][field]": {"Score"}, "sort[0][direction]": {"desc"}, "pageSize": {"100"}}
	var want []apiRequest
	for _, offset := range []string{"", "itr2", "itr3"} {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		if offset != "" {
			q.Set("offset", offset)
		}
		want = append(want, apiRequest{Method: "GET", Path: "/v0/appL3dptT6ZTSzY9v/tblzR9vSuFUzlQNMI", Query: q.Encode()})
	}
	wantRequests(t, reqs, want...)
	wantItems(t, out, `[{"id": "rec1", "createdTime": "2024-05-01T10:00:00.000Z", "Email": "a@x.org", "Score": 3},
		{"id": "rec2", "createdTime": "2024-05-02T10:00:00.000Z"},
		{"id": "rec3", "createdTime": "2024-05-03T10:00:00.000Z", "Email": "c@x.org"}]`)

	// A limit: one request of maxRecords, its offset not followed.
	out, reqs = runFlow(t, "airtable_record_search", map[string]any{"base": "app1", "table": "Leads", "limit": 5}, reply)
	wantRequests(t, reqs, apiRequest{Method: "GET", Path: "/v0/app1/Leads", Query: "maxRecords=5"})
	wantItems(t, out, `[{"id": "rec1", "createdTime": "2024-05-01T10:00:00.000Z", "Email": "a@x.org", "Score": 3}]`)
}

// Create and Update (by the record's id) as n8n's Airtable node v2.1
// sends them (create.operation.js, update.operation.js, batchUpdate):
// POST {typecast, fields}, its item the record; PATCH {typecast, records
// = [{id, fields}]}, its items the records.
func TestAirtableCreateAndUpdate(t *testing.T) {
	record := `{"id": "rec7", "createdTime": "2024-05-01T10:00:00.000Z", "fields": {"Name": "Ada", "Qty": 2}}`
	inputs := map[string]any{"base": "app1", "table": "tblX", "fields": map[string]any{"Name": "Ada", "Qty": 2, "Invoices": []string{"rec1"}}}
	out, reqs := runFlow(t, "airtable_record_create", inputs, replyJSON(record))
	wantRequests(t, reqs, apiRequest{Method: "POST", Path: "/v0/app1/tblX", Type: "application/json",
		Body: `{"fields":{"Invoices":["rec1"],"Name":"Ada","Qty":2},"typecast":false}`})
	wantItems(t, out, "["+record+"]")

	inputs = map[string]any{"base": "app1", "table": "tblX", "id": "rec7", "fields": map[string]any{"Qty": 2}, "typecast": true}
	out, reqs = runFlow(t, "airtable_record_update", inputs, replyJSON(`{"records": [`+record+`]}`))
	wantRequests(t, reqs, apiRequest{Method: "PATCH", Path: "/v0/app1/tblX", Type: "application/json",
		Body: `{"records":[{"fields":{"Qty":2},"id":"rec7"}],"typecast":true}`})
	wantItems(t, out, "["+record+"]")
}
