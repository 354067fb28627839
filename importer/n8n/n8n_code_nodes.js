// The n8n_code adapter, continued (after n8n_code.js): Merge's combining
// modes, the Schedule Trigger's item, and IF v1, Switch v1 and v2, Merge
// v1 as their code makes them.

// lodashMerge merges src into target as lodash's merge does for JSON:
// objects and arrays key by key, deeply; other values replace.
function lodashMerge(target, src) {
  Object.keys(src).forEach(function (k) {
    var s = src[k]
    var t = target[k]
    if (s !== null && typeof s === 'object') {
      var base
      if (Array.isArray(s)) {
        base = Array.isArray(t) ? t.slice() : []
      } else {
        base = isObject(t) ? Object.assign({}, t) : {}
      }
      target[k] = lodashMerge(base, s)
    } else if (s !== undefined || !(k in target)) {
      target[k] = s
    }
  })
  return target
}

// combineByPosition is Merge v3's combine by position: the json of the
// items at each position merged, the preferred input's last.
function combineByPosition(p) {
  var inputs = p.inputs || []
  if (p.empty_passes && inputs.some(function (l) { return l.length === 0 })) {
    // Merge v2: the items of both inputs when one has none.
    return [].concat.apply([], inputs)
  }
  var opts = p.options || {}
  var clash = (opts.clashHandling || {}).values || {}
  var resolve = clash.resolveClash || ''
  var preferredIndex = resolve.indexOf('preferInput') === 0 ? Number(resolve.replace('preferInput', '')) - 1 : inputs.length - 1
  var preferred = inputs[preferredIndex] || []
  var lengths = inputs.map(function (l) { return l.length }).concat([preferred.length])
  var count = opts.includeUnpaired ? Math.max.apply(null, lengths) : Math.min.apply(null, lengths)
  var out = []
  for (var i = 0; i < count; i++) {
    var parts = inputs.map(function (l) { return l[i] || {} }).concat([preferred[i] || {}])
    var json = {}
    parts.forEach(function (part) {
      if (clash.mergeMode === 'shallowMerge') {
        Object.assign(json, part)
      } else {
        lodashMerge(json, part)
      }
    })
    out.push(json)
  }
  return out
}

// combineAll is Merge's combine all (v2's multiplex): for each item of
// input 1, each item of input 2, their json merged (lodash's merge,
// deeply, or shallowly), input 2's fields winning unless input 1 is
// preferred.
function combineAll(p) {
  var inputs = p.inputs || []
  var clash = ((p.options || {}).clashHandling || {}).values || {}
  var a = inputs[0] || []
  var b = inputs[1] || []
  if (clash.resolveClash === 'preferInput1') {
    var t = a
    a = b
    b = t
  }
  var out = []
  a.forEach(function (x) {
    b.forEach(function (y) {
      if (clash.mergeMode === 'shallowMerge') {
        out.push(Object.assign({}, x, y))
      } else {
        out.push(lodashMerge(lodashMerge({}, x), y))
      }
    })
  })
  return out
}

// scheduleTrigger is the item n8n's Schedule Trigger gives, in UTC.
function scheduleTrigger() {
  var d = new Date()
  var h = d.getUTCHours()
  var h12 = h % 12 === 0 ? 12 : h % 12
  var ampm = h < 12 ? 'am' : 'pm'
  var time = h12 + ':' + pad(d.getUTCMinutes(), 2) + ':' + pad(d.getUTCSeconds(), 2) + ' ' + ampm
  return [{
    timestamp: d.toISOString().replace('Z', '+00:00'),
    'Readable date': months[d.getUTCMonth()] + ' ' + ordinal(d.getUTCDate()) + ' ' + d.getUTCFullYear() + ', ' + time,
    'Readable time': time,
    'Day of week': days[d.getUTCDay()],
    Year: String(d.getUTCFullYear()),
    Month: months[d.getUTCMonth()],
    'Day of month': pad(d.getUTCDate(), 2),
    Hour: pad(h, 2),
    Minute: pad(d.getUTCMinutes(), 2),
    Second: pad(d.getUTCSeconds(), 2),
    Timezone: 'UTC (UTC+00:00)',
  }]
}

// compareV1 are the comparisons of n8n's IF v1 and Switch v1 and v2
// (nodes/If/V1, nodes/Switch/V1 and V2), as their code makes them.
function regexV1(value2) {
  var m = (value2 || '').toString().match(new RegExp('^/(.*?)/([gimusy]*)$'))
  if (!m) {
    return new RegExp((value2 || '').toString())
  }
  return new RegExp(m[1], m[2])
}

function emptyV1(v) {
  return [undefined, null, ''].includes(v) || (typeof v === 'number' && isNaN(v)) ||
    (typeof v === 'object' && v !== null ? Object.entries(v).length === 0 : false)
}

var compareV1 = {
  after: function (a, b) { return (a || 0) > (b || 0) },
  before: function (a, b) { return (a || 0) < (b || 0) },
  contains: function (a, b) { return (a || '').toString().includes((b || '').toString()) },
  notContains: function (a, b) { return !(a || '').toString().includes((b || '').toString()) },
  endsWith: function (a, b) { return a.endsWith(b) },
  notEndsWith: function (a, b) { return !a.endsWith(b) },
  equal: function (a, b) { return a === b },
  notEqual: function (a, b) { return a !== b },
  larger: function (a, b) { return (a || 0) > (b || 0) },
  largerEqual: function (a, b) { return (a || 0) >= (b || 0) },
  smaller: function (a, b) { return (a || 0) < (b || 0) },
  smallerEqual: function (a, b) { return (a || 0) <= (b || 0) },
  startsWith: function (a, b) { return a.startsWith(b) },
  notStartsWith: function (a, b) { return !a.startsWith(b) },
  isEmpty: function (a) { return emptyV1(a) },
  isNotEmpty: function (a) { return !emptyV1(a) },
  regex: function (a, b) { return !!(a || '').toString().match(regexV1(b)) },
  notRegex: function (a, b) { return !(a || '').toString().match(regexV1(b)) },
}

function compareOfV1(op) {
  var f = compareV1.hasOwnProperty(op) ? compareV1[op] : undefined
  if (!f) {
    throw new TypeError('compareOperationFunctions[compareData.operation] is not a function (' + op + ')')
  }
  return f
}

// ifV1 is for each item whether n8n's IF v1 sends it to its true output:
// p.items holds each item's conditions ({operation, value1, value2}, in
// the order n8n checks them), p.combine is all or any.
function ifV1(p) {
  return (p.items || []).map(function (conds) {
    for (var k = 0; k < conds.length; k++) {
      var r = compareOfV1(conds[k].operation)(conds[k].value1, conds[k].value2)
      if (r && p.combine === 'any') {
        return true
      }
      if (!r && p.combine === 'all') {
        return false
      }
    }
    return p.combine === 'all'
  })
}

// switchV1 is for each item the output n8n's Switch v1 or v2 (rules
// mode) sends it to, -1 for none: p.items holds each item's value1, rules
// ({operation, value2, output}) and fallback output; p.outputs is the
// number of outputs; v2 sends an item to the index of its rule, v1 to
// the rule's output.
function switchV1(p) {
  var check = function (index) {
    if (index < 0 || index >= p.outputs) {
      throw new Error('The ouput ' + index + ' is not allowed. It has to be between 0 and ' + (p.outputs - 1) + '!')
    }
  }
  return (p.items || []).map(function (it) {
    for (var k = 0; k < it.rules.length; k++) {
      var r = it.rules[k]
      if (compareOfV1(r.operation)(it.value1, r.value2)) {
        check(r.output)
        return p.v2 ? k : r.output
      }
    }
    if (it.fallback !== -1) {
      check(it.fallback)
      return it.fallback
    }
    return -1
  })
}

// lodashGet is lodash's get: a key the object has as it is, or a path.
function lodashGet(obj, path) {
  if (obj !== null && obj !== undefined && typeof path === 'string' && path in Object(obj)) {
    return obj[path]
  }
  return get(obj, path)
}

// mergeV1 is n8n's Merge v1 (nodes/Merge/v1) in the modes that compute
// items: merge by index, multiplex, keep key matches, merge by key and
// remove key matches.
function mergeV1(p) {
  var in1 = (p.inputs || [])[0] || []
  var in2 = (p.inputs || [])[1] || []
  var out = []
  switch (p.mode) {
    case 'mergeByIndex': {
      var join = p.join || 'left'
      if (in1.length === 0) {
        return ['inner', 'left'].includes(join) ? [] : in2
      }
      if (in2.length === 0) {
        return ['left', 'outer'].includes(join) ? in1 : []
      }
      var num = in1.length
      if (join === 'inner') {
        num = Math.min(in1.length, in2.length)
      } else if (join === 'outer') {
        num = Math.max(in1.length, in2.length)
      }
      for (var i = 0; i < num; i++) {
        if (i >= in1.length) {
          out.push(in2[i])
          continue
        }
        if (i >= in2.length) {
          out.push(in1[i])
          continue
        }
        out.push(Object.assign({}, in1[i], in2[i]))
      }
      return out
    }
    case 'multiplex':
      in1.forEach(function (a) {
        in2.forEach(function (b) {
          out.push(Object.assign({}, a, b))
        })
      })
      return out
  }
  var mode = p.mode
  var name1 = p.propertyName1, name2 = p.propertyName2
  var overwrite = p.overwrite || 'always'
  if (!name1 || !name2) {
    return mode === 'keepKeyMatches' ? [] : in1
  }
  var copy = {}
  in2.forEach(function (json) {
    var key = lodashGet(json, name2)
    if (!json || !key) {
      return
    }
    copy[key] = json
  })
  in1.forEach(function (entry) {
    var ref = lodashGet(entry, name1)
    if (ref === undefined) {
      if (mode === 'removeKeyMatches') {
        out.push(entry)
      }
      return
    }
    if (!['string', 'number'].includes(typeof ref) && ref !== null) {
      if (mode === 'removeKeyMatches') {
        out.push(entry)
      }
      return
    }
    if (typeof ref === 'number') {
      ref = ref.toString()
    }
    if (copy.hasOwnProperty(ref)) {
      if (mode === 'removeKeyMatches') {
        return
      } else if (mode === 'mergeByKey') {
        entry = JSON.parse(JSON.stringify(entry))
        Object.keys(copy[ref]).forEach(function (key) {
          if (key === name2) {
            return
          }
          var value = copy[ref][key]
          if (overwrite === 'always' || (overwrite === 'undefined' && !entry.hasOwnProperty(key)) ||
            (overwrite === 'blank' && [null, undefined, ''].includes(entry[key]))) {
            entry[key] = value
          }
        })
      } else {
        out.push(entry)
        return
      }
    } else if (mode === 'removeKeyMatches') {
      out.push(entry)
      return
    }
    if (mode === 'mergeByKey') {
      out.push(entry)
    }
  })
  return out
}

// combineByFields is Merge v3's combine by matching fields (n8n's
// combineByFields and its helpers findMatches and mergeMatched) over the
// json of the items of its two inputs; p.fields are the pairs of fields
// to match, p.joinMode, p.outputDataFrom and p.options as n8n's.
function combineByFields(p) {
  var input1 = (p.inputs || [])[0] || []
  var input2 = (p.inputs || [])[1] || []
  var joinMode = p.joinMode
  var from = p.outputDataFrom
  var opts = p.options || {}
  var clash = (opts.clashHandling || {}).values || {}
  if (input1.length === 0 || input2.length === 0) {
    if (!input1.length && joinMode === 'keepNonMatches' && from === 'input1') return []
    if (!input2.length && joinMode === 'keepNonMatches' && from === 'input2') return []
    if (joinMode === 'keepMatches') return []
    if (joinMode === 'enrichInput1' && input1.length === 0) return []
    if (joinMode === 'enrichInput2' && input2.length === 0) return []
    return input1.concat(input2)
  }
  var getField = function (json, key) {
    return opts.disableDotNotation ? json[key] : lodashGet(json, key)
  }
  var matched = [], matched2 = [], unmatched1 = [], unmatched2 = []
  var matchedIn2 = {}
  input1.forEach(function (entry1) {
    var lookup = {}
    p.fields.forEach(function (f) {
      lookup[f.field2] = getField(entry1, f.field1)
    })
    var keys = Object.keys(lookup)
    if (keys.some(function (k) { return lookup[k] === undefined })) {
      unmatched1.push(entry1)
      return
    }
    var found = []
    for (var i = 0; i < input2.length; i++) {
      var entry2 = input2[i]
      if (keys.every(function (k) { return equal(lookup[k], getField(entry2, k)) })) {
        found.push(i)
        if (opts.multipleMatches === 'first') break
      }
    }
    found.forEach(function (i) { matchedIn2[i] = true })
    var matches = found.map(function (i) { return input2[i] })
    if (!matches.length) {
      unmatched1.push(entry1)
    } else if (from === 'both' || joinMode === 'enrichInput1' || joinMode === 'enrichInput2') {
      matches.forEach(function (m) { matched.push({ entry: entry1, matches: [m] }) })
    } else {
      matched.push({ entry: entry1, matches: matches })
    }
  })
  input2.forEach(function (entry, i) {
    (matchedIn2[i] ? matched2 : unmatched2).push(entry)
  })
  var mergeInto = function (parts) {
    var json = {}
    parts.forEach(function (part) {
      if (clash.mergeMode === 'shallowMerge') {
        Object.assign(json, part)
      } else {
        lodashMerge(json, part)
      }
    })
    return json
  }
  var mergeMatched = function () {
    var resolve = clash.resolveClash
    if (resolve === undefined) {
      resolve = joinMode !== 'enrichInput2' ? 'preferLast' : 'preferInput1'
    }
    return matched.map(function (m) {
      if (resolve === 'preferInput1') {
        return mergeInto(m.matches.concat([m.entry]))
      }
      if (resolve === 'preferLast') {
        return mergeInto([m.entry].concat(m.matches))
      }
      return {}
    })
  }
  switch (joinMode) {
    case 'keepMatches':
    case 'keepEverything': {
      var out = []
      if (from === 'input1') out = matched.map(function (m) { return m.entry })
      if (from === 'input2') out = matched2
      if (from === 'both') out = mergeMatched()
      if (joinMode === 'keepEverything') out = out.concat(unmatched1, unmatched2)
      return out
    }
    case 'keepNonMatches':
      if (from === 'input1') return unmatched1
      if (from === 'input2') return unmatched2
      if (from === 'both') {
        return unmatched1.map(function (e) { return Object.assign({}, e, { _source: 'input1' }) })
          .concat(unmatched2.map(function (e) { return Object.assign({}, e, { _source: 'input2' }) }))
      }
      return []
    case 'enrichInput1':
      return mergeMatched().concat(unmatched1)
    case 'enrichInput2':
      return mergeMatched().concat(unmatched2)
  }
  return []
}
