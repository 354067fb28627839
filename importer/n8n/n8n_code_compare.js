// The n8n_code adapter, continued (after n8n_code_legacy.js): Compare
// Datasets.

// compareDatasets is Compare Datasets v2.2 and v2.3 without fuzzy
// comparison, as n8n's findMatches: the items of input A found in input B
// by the fields to match (the first match, or all), split into four
// outputs — in A only, the same in both, different, in B only. Items
// are {json} as n8n's, so that a Mix's changes to an item of A are seen
// wherever n8n's are.
function compareDatasets(p) {
  var opts = p.options || {}
  var version = p.__version || 2.3
  var dot = !opts.disableDotNotation
  var read = function (json, f) { return dot ? get(json, f) : json[f] }
  var empty = function (v) { return v === null || v === undefined || (typeof v === 'object' && Object.keys(v).length === 0) }
  var pairs = ((p.mergeByFields || {}).values || [{ field1: '', field2: '' }]).map(function (f) {
    return { field1: f.field1 === undefined ? '' : f.field1, field2: f.field2 === undefined ? '' : f.field2 }
  })
  if (pairs.length === 1 && pairs[0].field1 === '' && pairs[0].field2 === '') {
    throw new Error('You need to define at least one pair of fields in "Fields to Match" to match on')
  }
  pairs.forEach(function (f, i) {
    if (f.field1 === '' || f.field2 === '') {
      throw new Error('You need to define both fields in "Fields to Match" for pair ' + (i + 1))
    }
  })
  var inputs = p.inputs || []
  var wrapAll = function (list) {
    return (list || []).filter(function (json) { return !empty(json) }).map(function (json) { return { json: json } })
  }
  var data1 = wrapAll(inputs[0])
  var data2 = wrapAll(inputs[1])
  var resolve = p.resolve || (version >= 2.1 ? 'includeBoth' : 'preferInput2')
  var skip = String(opts.skipFields || '').split(',').map(function (f) { return f.trim() })
  if (!dot && skip.some(function (f) { return f.indexOf('.') >= 0 })) {
    throw new Error("Dot notation is disabled, but field to skip comparing '" + skip.filter(function (f) { return f.indexOf('.') >= 0 })[0] + "' contains dot")
  }
  var unmatched1 = []
  var unmatched2 = []
  var matched = []
  var found2 = {}
  data1.forEach(function (entry) {
    var lookup = {}
    var missing = false
    pairs.forEach(function (f) {
      var v = read(entry.json, f.field1)
      lookup[f.field2] = v
      missing = missing || v === undefined
    })
    if (missing) {
      unmatched1.push(entry)
      return
    }
    var matches = []
    for (var i = 0; i < data2.length; i++) {
      var ok = Object.keys(lookup).every(function (k) { return equal(lookup[k], read(data2[i].json, k)) })
      if (ok) {
        matches.push(data2[i])
        found2[i] = true
        if ((opts.multipleMatches || 'first') !== 'all') {
          break
        }
      }
    }
    if (matches.length) {
      matched.push({ entry: entry, matches: matches })
    } else {
      unmatched1.push(entry)
    }
  })
  data2.forEach(function (entry, i) {
    if (!found2[i]) {
      unmatched2.push(entry)
    }
  })
  var dotted = skip.some(function (f) { return f.indexOf('.') >= 0 })
  var without = function (json) {
    var copy = JSON.parse(JSON.stringify(json))
    skip.forEach(function (f) {
      if (!dot || !dotted) {
        delete copy[f]
      } else {
        unsetPath(copy, f)
      }
    })
    return copy
  }
  var same = []
  var different = []
  matched.forEach(function (m) {
    // Initialized: goja gives a var that a closure captures, in a callback
    // that has more arguments than parameters, the value of an argument.
    var kept = null
    m.matches.forEach(function (match) {
      if (equal(without(m.entry.json), without(match.json))) {
        kept = kept || m.entry
        return
      }
      switch (resolve) {
        case 'preferInput1':
          different.push(m.entry)
          break
        case 'preferInput2':
          different.push(match)
          break
        case 'mix':
          different.push(mixItems(m.entry, match, p.preferWhenMix || 'input1', p.exceptWhenMix || '', dot))
          break
        default:
          different.push({ json: bothVersions(m.entry.json, match.json, pairs, skip, dot) })
      }
    })
    if (kept) {
      same.push(kept)
    }
  })
  var jsons = function (list) { return list.map(function (it) { return JSON.parse(JSON.stringify(it.json)) }) }
  return [jsons(unmatched1), jsons(same), jsons(different), jsons(unmatched2)]
}

// mixItems is Compare Datasets' Mix: the preferred version, with the
// fields of the other one named in except (n8n changes the item itself).
function mixItems(item1, item2, prefer, except, dot) {
  var entry = prefer === 'input1' ? item1 : item2
  var match = prefer === 'input1' ? item2 : item1
  var fields = Array.isArray(except) ? except : (except ? String(except).split(',').map(function (f) { return f.trim() }) : [])
  fields.forEach(function (f) {
    entry.json[f] = match.json[f]
    if (dot) {
      // n8n reads the field by its path and sets it under its whole name.
      entry.json[f] = get(match.json, f) || null
    }
  })
  return entry
}

// bothVersions is Compare Datasets' Include Both Versions (v2 and after):
// the keys matched, the fields the same, and each other field's two
// values (null where one lacks it); a field skipped is under skipped.
function bothVersions(json1, json2, pairs, skip, dot) {
  var keys = {}
  pairs.forEach(function (f) { keys[f.field1] = json1[f.field1] })
  var k1 = Object.keys(json1)
  var k2 = Object.keys(json2)
  var all = k1.concat(k2.filter(function (k) { return k1.indexOf(k) < 0 }))
  var sameOut = {}
  k1.filter(function (k) { return k2.indexOf(k) >= 0 }).forEach(function (k) {
    if (equal(json1[k], json2[k])) {
      sameOut[k] = json1[k]
    }
  })
  var differentOut = {}
  var skipped = {}
  var nullish = function (v) { return v === undefined ? null : v }
  all.filter(function (k) { return !(k in sameOut) }).forEach(function (k) {
    var a = nullish(json1[k])
    var b = nullish(json2[k])
    if (dot && skip.indexOf(k) < 0) {
      if (skip.some(function (f) { return f.indexOf(k) === 0 && f.indexOf('.') >= 0 })) {
        throw new Error("Skipping a field inside '" + k + "' is not converted by flowctl import")
      }
      differentOut[k] = { inputA: a, inputB: b }
    } else if (skip.indexOf(k) >= 0) {
      skipped[k] = { inputA: a, inputB: b }
    } else {
      differentOut[k] = { inputA: a, inputB: b }
    }
  })
  var out = { keys: keys, same: sameOut, different: differentOut }
  if (Object.keys(skipped).length) {
    out.skipped = skipped
  }
  return out
}
