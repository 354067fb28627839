// n8n's dates ($now, $today, DateTime): luxon's DateTime in UTC or in
// the workflow's timezone (its offsets, which the importer writes from
// Go's time zone database: n8nZone), with the methods and format
// tokens whose values do not depend on the locale (luxon 3.7's
// datetime.js and impl/formatter.js; n8n-workflow's date extensions for
// format and the (amount, unit) arguments of plus and minus). The
// importer refuses the other forms (n8n_time.go), so each name here gives
// n8n's value.

// n8nUTC is luxon's fixed zone of UTC.
var n8nUTC = { fixed: true, name: 'UTC', offset: function () { return 0 } }

// n8nZone is an IANA zone from the importer's table of its offsets:
// changes are [from (ms), offset (minutes)], in order, to until.
function n8nZone(z) {
  return {
    fixed: false,
    name: z.name,
    offset: function (ts) {
      var ch = z.changes
      if (ts < ch[0][0] || ts >= z.until) {
        throw new AdapterError('the time ' + new Date(ts).toISOString() + ' is outside the offsets of ' + z.name + ' the import wrote (import the workflow again)')
      }
      var o = ch[0][1]
      for (var i = 0; i < ch.length && ch[i][0] <= ts; i++) {
        o = ch[i][1]
      }
      return o
    },
  }
}

function N8nDateTime(ts, zone) {
  this.ts = ts
  this.zone = zone || n8nUTC
  this.o = this.zone.offset(ts)
  var d = new Date(ts + this.o * 60000)
  this.year = d.getUTCFullYear()
  this.month = d.getUTCMonth() + 1
  this.day = d.getUTCDate()
  this.hour = d.getUTCHours()
  this.minute = d.getUTCMinutes()
  this.second = d.getUTCSeconds()
  this.millisecond = d.getUTCMilliseconds()
  this.weekday = d.getUTCDay() === 0 ? 7 : d.getUTCDay()
  this.quarter = Math.ceil(this.month / 3)
  this.zoneName = this.zone.name
  this.offset = this.o
  this.isValid = true
}

// n8nFixOffset is luxon's fixOffset: the time of a local time in a zone,
// given a guess of its offset.
function n8nFixOffset(localTS, o, zone) {
  var utcGuess = localTS - o * 60000
  var o2 = zone.offset(utcGuess)
  if (o === o2) {
    return utcGuess
  }
  utcGuess -= (o2 - o) * 60000
  var o3 = zone.offset(utcGuess)
  if (o2 === o3) {
    return utcGuess
  }
  return localTS - Math.min(o2, o3) * 60000
}

// luxon's Duration.normalizeUnit, after n8n's DURATION_MAP.
var n8nTimeUnits = {
  year: 'years', years: 'years', quarter: 'quarters', quarters: 'quarters',
  month: 'months', months: 'months', week: 'weeks', weeks: 'weeks', day: 'days', days: 'days',
  hour: 'hours', hours: 'hours', minute: 'minutes', minutes: 'minutes', second: 'seconds', seconds: 'seconds',
  millisecond: 'milliseconds', milliseconds: 'milliseconds',
}
var n8nDurationMap = { ms: 'milliseconds', sec: 'seconds', secs: 'seconds', hr: 'hours', hrs: 'hours', min: 'minutes', mins: 'minutes' }

function n8nTimeUnit(u) {
  var n = typeof u === 'string' ? n8nTimeUnits[u.toLowerCase()] : undefined
  if (!n) {
    throw new Error('Invalid unit ' + u)
  }
  return n
}

// n8nDuration is luxon's Duration.fromObject of a duration-like object,
// or n8n's (amount, unit) pair.
function n8nDuration(args) {
  var obj = args[0]
  if (args.length !== 1) {
    var unit = args.length > 1 ? args[1] : 'minutes'
    obj = {}
    obj[n8nDurationMap[unit] || unit] = args.length > 0 ? args[0] : 0
  }
  if (obj === null || typeof obj !== 'object') {
    throw new Error('Unknown duration argument ' + obj + ' of type ' + typeof obj)
  }
  var dur = { years: 0, quarters: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0, milliseconds: 0 }
  Object.keys(obj).forEach(function (k) {
    var v = obj[k]
    if (v === undefined || v === null) {
      return
    }
    var num = Number(v)
    if (typeof v === 'boolean' || v === '' || !isFinite(num)) {
      throw new Error('Invalid unit value ' + v)
    }
    dur[n8nTimeUnit(k)] = num
  })
  return dur
}

var n8nDay = 86400000

// plus is luxon's adjustTime in a fixed zone: whole years, quarters and
// months move the calendar month (the day kept within it), whole weeks
// and days the day; the rest is time, fractions of calendar units at
// luxon's casual lengths.
N8nDateTime.prototype.plus = function () {
  var dur = n8nDuration(Array.prototype.slice.call(arguments))
  return this.n8nAdjust(dur, 1)
}

N8nDateTime.prototype.minus = function () {
  var dur = n8nDuration(Array.prototype.slice.call(arguments))
  return this.n8nAdjust(dur, -1)
}

N8nDateTime.prototype.n8nAdjust = function (dur, sign) {
  Object.keys(dur).forEach(function (k) { dur[k] = dur[k] * sign })
  var year = this.year + Math.trunc(dur.years)
  var month = this.month + Math.trunc(dur.months) + Math.trunc(dur.quarters) * 3
  var modMonth = ((month - 1) % 12 + 12) % 12 + 1
  var modYear = year + (month - modMonth) / 12
  var dim = new Date(Date.UTC(modYear, modMonth, 0)).getUTCDate()
  var day = Math.min(this.day, dim) + Math.trunc(dur.days) + Math.trunc(dur.weeks) * 7
  var ts = n8nFixOffset(Date.UTC(year, month - 1, 1, this.hour, this.minute, this.second, this.millisecond) + (day - 1) * n8nDay, this.o, this.zone)
  ts += (dur.years - Math.trunc(dur.years)) * 365 * n8nDay +
    (dur.quarters - Math.trunc(dur.quarters)) * 91 * n8nDay +
    (dur.months - Math.trunc(dur.months)) * 30 * n8nDay +
    (dur.weeks - Math.trunc(dur.weeks)) * 7 * n8nDay +
    (dur.days - Math.trunc(dur.days)) * n8nDay +
    dur.hours * 3600000 + dur.minutes * 60000 + dur.seconds * 1000 + dur.milliseconds
  return new N8nDateTime(ts, this.zone)
}

// startOf is luxon's: weeks start on Monday.
N8nDateTime.prototype.startOf = function (unit) {
  var u = n8nTimeUnit(unit)
  var c = [this.year, this.month - 1, this.day, this.hour, this.minute, this.second, this.millisecond]
  var keep = { years: 1, quarters: 2, months: 2, weeks: 3, days: 3, hours: 4, minutes: 5, seconds: 6, milliseconds: 7 }[u]
  for (var i = keep; i < c.length; i++) {
    c[i] = i === 2 ? 1 : 0
  }
  if (u === 'quarters') {
    c[1] = (this.quarter - 1) * 3
  }
  var local = Date.UTC(c[0], c[1], c[2], c[3], c[4], c[5], c[6])
  if (u === 'weeks') {
    local -= (this.weekday - 1) * n8nDay
  }
  return new N8nDateTime(n8nFixOffset(local, this.o, this.zone), this.zone)
}

N8nDateTime.prototype.endOf = function (unit) {
  var o = {}
  o[n8nTimeUnit(unit)] = 1
  return this.plus(o).startOf(unit).minus({ milliseconds: 1 })
}

N8nDateTime.prototype.toUTC = function () { return new N8nDateTime(this.ts, n8nUTC) }
N8nDateTime.prototype.toMillis = function () { return this.ts }
N8nDateTime.prototype.valueOf = function () { return this.ts }
N8nDateTime.prototype.toSeconds = function () { return this.ts / 1000 }
N8nDateTime.prototype.toUnixInteger = function () { return Math.floor(this.ts / 1000) }
N8nDateTime.prototype.toISODate = function () { return this.toFormat(this.year > 9999 || this.year < 0 ? 'yyyyyy-MM-dd' : 'yyyy-MM-dd') }
N8nDateTime.prototype.toISO = function () {
  return this.toISODate() + 'T' + this.toFormat('HH:mm:ss.SSS') + (this.zone.fixed && this.o === 0 ? 'Z' : n8nOffset(this.o, 'short'))
}

// n8nOffset is luxon's formatOffset.
function n8nOffset(offset, format) {
  var hours = Math.trunc(Math.abs(offset / 60))
  var minutes = Math.trunc(Math.abs(offset % 60))
  var sign = offset >= 0 ? '+' : '-'
  switch (format) {
    case 'short': return sign + n8nPad(hours, 2) + ':' + n8nPad(minutes, 2)
    case 'narrow': return sign + hours + (minutes > 0 ? ':' + minutes : '')
  }
  return sign + n8nPad(hours, 2) + n8nPad(minutes, 2)
}
N8nDateTime.prototype.toString = function () { return this.toISO() }
N8nDateTime.prototype.toJSON = function () { return this.toISO() }

function n8nPad(n, p) {
  var s = String(Math.abs(n))
  while (s.length < (p || 0)) {
    s = '0' + s
  }
  return (n < 0 ? '-' : '') + s
}

// toFormat is luxon's Formatter.formatDateTimeFromString for the tokens
// that are numbers (n8n's format is toFormat).
N8nDateTime.prototype.toFormat = function (fmt) {
  var dt = this
  var ordinal = Math.round((Date.UTC(dt.year, dt.month - 1, dt.day) - Date.UTC(dt.year, 0, 1)) / n8nDay) + 1
  var token = function (t) {
    switch (t) {
      case 'S': return n8nPad(dt.millisecond)
      case 'u': case 'SSS': return n8nPad(dt.millisecond, 3)
      case 's': return n8nPad(dt.second)
      case 'ss': return n8nPad(dt.second, 2)
      case 'uu': return n8nPad(Math.floor(dt.millisecond / 10), 2)
      case 'uuu': return n8nPad(Math.floor(dt.millisecond / 100))
      case 'm': return n8nPad(dt.minute)
      case 'mm': return n8nPad(dt.minute, 2)
      case 'h': return n8nPad(dt.hour % 12 === 0 ? 12 : dt.hour % 12)
      case 'hh': return n8nPad(dt.hour % 12 === 0 ? 12 : dt.hour % 12, 2)
      case 'H': return n8nPad(dt.hour)
      case 'HH': return n8nPad(dt.hour, 2)
      case 'Z': return n8nOffset(dt.o, 'narrow')
      case 'ZZ': return n8nOffset(dt.o, 'short')
      case 'ZZZ': return n8nOffset(dt.o, 'techie')
      case 'z': return dt.zoneName
      case 'd': return n8nPad(dt.day)
      case 'dd': return n8nPad(dt.day, 2)
      case 'c': case 'E': return n8nPad(dt.weekday)
      case 'L': case 'M': return n8nPad(dt.month)
      case 'LL': case 'MM': return n8nPad(dt.month, 2)
      case 'y': return n8nPad(dt.year)
      case 'yy': return n8nPad(Number(dt.year.toString().slice(-2)), 2)
      case 'yyyy': return n8nPad(dt.year, 4)
      case 'yyyyyy': return n8nPad(dt.year, 6)
      case 'o': return n8nPad(ordinal)
      case 'ooo': return n8nPad(ordinal, 3)
      case 'q': return n8nPad(dt.quarter)
      case 'qq': return n8nPad(dt.quarter, 2)
      case 'X': return n8nPad(Math.floor(dt.ts / 1000))
      case 'x': return n8nPad(dt.ts)
    }
    return t
  }
  var out = ''
  n8nParseFormat(String(fmt)).forEach(function (p) {
    out += p.literal ? p.val : token(p.val)
  })
  return out
}
N8nDateTime.prototype.format = N8nDateTime.prototype.toFormat

// n8nParseFormat is luxon's Formatter.parseFormat.
function n8nParseFormat(fmt) {
  var current = null
  var currentFull = ''
  var bracketed = false
  var splits = []
  for (var i = 0; i < fmt.length; i++) {
    var c = fmt.charAt(i)
    if (c === "'") {
      if (currentFull.length > 0 || bracketed) {
        splits.push({ literal: bracketed || /^\s+$/.test(currentFull), val: currentFull === '' ? "'" : currentFull })
      }
      current = null
      currentFull = ''
      bracketed = !bracketed
    } else if (bracketed) {
      currentFull += c
    } else if (c === current) {
      currentFull += c
    } else {
      if (currentFull.length > 0) {
        splits.push({ literal: /^\s+$/.test(currentFull), val: currentFull })
      }
      currentFull = c
      current = c
    }
  }
  if (currentFull.length > 0) {
    splits.push({ literal: bracketed || /^\s+$/.test(currentFull), val: currentFull })
  }
  return splits
}

// n8nTimeNames are $now, $today and DateTime as n8n's expressions have
// them, at the time now, in the workflow's zone (UTC without one).
function n8nTimeNames(z) {
  var zone = z ? n8nZone(z) : n8nUTC
  var now = new N8nDateTime(Date.now(), zone)
  var DateTime = {
    now: function () { return new N8nDateTime(Date.now(), zone) },
    utc: function () { return new N8nDateTime(Date.now(), n8nUTC) },
    local: function () { return new N8nDateTime(Date.now(), zone) },
  }
  return { $now: now, $today: now.startOf('day'), DateTime: DateTime }
}
