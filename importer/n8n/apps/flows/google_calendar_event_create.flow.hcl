# Google Calendar: create an event — n8n's Google Calendar node v1–1.3,
# Event → Create, for one item, as it builds the request
# (GoogleCalendar.node.js, create): the start and end read as
# moment.tz(date, timezone) reads them — an ISO 8601 date with its
# offset as it is, one without in the workflow's timezone — sent in UTC
# with the timezone's name, or as dates for an all-day event; the
# additional fields in the body and the query. Written by flowctl import
# from its registry (importer/n8n/apps); every import writes the same
# file.
# https://developers.google.com/calendar/api/v3/reference/events/insert
flow "google_calendar_event_create" {
  description = "Creates a Google Calendar event"
}

secret "google_calendar" {
  description = "An OAuth2 access token of the Google account n8n's Google Calendar credential stands for, with the scope https://www.googleapis.com/auth/calendar; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Calendar API's root URL"
}

input "calendar" {
  type        = string
  default     = null
  description = "The calendar's ID (an address), sent as n8n's encodeURIComponentOnce makes it; null (a field the item lacks) fails the run"
}

input "start" {
  type        = string
  default     = null
  description = "The start: an ISO 8601 date, in zone unless it has an offset; null (a field the item lacks) fails the run"
}

input "end" {
  type        = string
  default     = null
  description = "The end, as start; null (a field the item lacks) fails the run"
}

input "zone" {
  type        = any
  description = "The workflow's timezone: its name, and the table of its offsets ([from (ms), offset (minutes)]) to until (ms), which the import writes"
}

input "fields" {
  type        = any
  default     = {}
  description = "The node's additional fields, by n8n's names (attendees, color, description, summary, location, allday, rrule…)"
}

input "reminders" {
  type        = any
  default     = null
  description = "With Use Default Reminders off, {overrides = the reminders ([{method, minutes}])}, or {} without them"
}

block "calendar_event" {
  runtime     = "js"
  description = "The request n8n's create builds: the calendar's path, the query and the body"
  input "args" {
    type = any
  }
  output "path" {
    type = string
  }
  output "query" {
    type = map(string)
  }
  output "body" {
    type = any
  }
  source = <<-JS
    // The zone's offset (minutes) at an instant (ms), from the table.
    function offsetAt(z, ts) {
      const ch = z.changes;
      if (ch.length === 0) return 0;
      if (ts < ch[0][0] || ts >= z.until) {
        throw new Error('the time ' + new Date(ts).toISOString() + ' is outside the offsets of ' + z.name + ' the import wrote (import the workflow again)');
      }
      let o = ch[0][1];
      for (let i = 0; i < ch.length && ch[i][0] <= ts; i++) o = ch[i][1];
      return o;
    }
    // moment.tz(s, zone): the instant (ms) and its offset in the zone.
    // An ISO 8601 date moment reads; a local time that a daylight-saving
    // change skips or repeats fails (moment moves it).
    function parse(s, z, what) {
      if (s === null || s === undefined) throw new Error('the ' + what + ' is missing: the item lacks the field the node reads it from');
      const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(String(s).trim());
      if (!m) throw new Error('the ' + what + ' ' + JSON.stringify(s) + ' is not an ISO 8601 date, which this flow reads as n8n does');
      const ms = m[7] ? Math.floor(Number('0.' + m[7]) * 1000) : 0;
      const local = Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] || 0), +(m[5] || 0), +(m[6] || 0), ms);
      if (m[8]) {
        let off = 0;
        if (m[8] !== 'Z') {
          const d = m[8].replace(':', '');
          off = (d[0] === '-' ? -1 : 1) * (Number(d.slice(1, 3)) * 60 + Number(d.slice(3, 5) || 0));
        }
        const ts = local - off * 60000;
        return { ts: ts, off: offsetAt(z, ts) };
      }
      const day = 26 * 3600000;
      const cands = [offsetAt(z, local - day), offsetAt(z, local + day)].filter((c, i, a) => a.indexOf(c) === i && offsetAt(z, local - c * 60000) === c);
      if (cands.length !== 1) {
        throw new Error('the ' + what + ' ' + s + ' falls in a daylight-saving change of ' + z.name + ', where n8n moves it: give it with its offset');
      }
      return { ts: local - cands[0] * 60000, off: cands[0] };
    }
    function pad(n) { return String(n).padStart(2, '0'); }
    function utc(t) {
      const d = new Date(t.ts);
      return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + 'T' + pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + 'Z';
    }
    // utc(true).format('YYYY-MM-DD'): the date in the zone.
    function localDate(t) {
      const d = new Date(t.ts + t.off * 60000);
      return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate());
    }
    function execute(input) {
      const a = input.args;
      const z = a.zone;
      const f = a.fields || {};
      const start = parse(a.start, z, 'start');
      const end = parse(a.end, z, 'end');
      const query = {};
      for (const k of ['maxAttendees', 'sendNotifications', 'sendUpdates']) {
        if (f[k]) query[k] = String(f[k]);
      }
      const body = {
        start: { dateTime: utc(start), timeZone: z.name },
        end: { dateTime: utc(end), timeZone: z.name },
      };
      if (f.attendees) {
        body.attendees = [];
        for (const list of f.attendees) {
          if (typeof list !== 'string') throw new Error('an attendee is ' + JSON.stringify(list) + ', not text, which n8n fails on too');
          for (const a of list.split(',')) body.attendees.push({ email: a.trim() });
        }
      }
      if (f.color) body.colorId = f.color;
      for (const k of ['description', 'guestsCanInviteOthers', 'guestsCanModify', 'guestsCanSeeOtherGuests', 'id', 'location', 'summary']) {
        if (f[k]) body[k] = f[k];
      }
      if (f.showMeAs) body.transparency = f.showMeAs;
      if (f.visibility) body.visibility = f.visibility;
      if (a.reminders !== null && a.reminders !== undefined) {
        body.reminders = { useDefault: false };
        if (a.reminders.overrides) body.reminders.overrides = a.reminders.overrides;
      }
      if (f.allday === 'yes') {
        body.start = { date: localDate(start) };
        body.end = { date: localDate(end) };
      }
      body.recurrence = f.rrule ? ['RRULE:' + f.rrule] : [];
      if (a.calendar === null || a.calendar === undefined) throw new Error('the calendar is missing: the item lacks the field the node reads it from');
      return { path: encodeURIComponent(decodeURIComponent(a.calendar)), query: query, body: body };
    }
  JS
}

step "request" {
  use = "calendar_event"
  args = {
    calendar  = input.calendar
    start     = input.start
    end       = input.end
    zone      = input.zone
    fields    = input.fields
    reminders = input.reminders
  }
}

step "create" {
  use     = "http"
  method  = "POST"
  url     = "${input.api_url}/calendar/v3/calendars/${step.request.path}/events"
  query   = step.request.query
  headers = { accept = "application/json", authorization = "Bearer ${secret.google_calendar}" }
  body    = step.request.body
}

output "items" {
  value       = [step.create.body]
  description = "The event, as n8n's node gives it: the API's answer"
}
