// The n8n_code block's source: n8n's Code node, n8n's expressions and the
// list nodes written in JavaScript, over the items a step is given (each
// item's json; items[index] is the current one). flowctl import writes it
// into blocks/n8n.block.hcl; docs/import.md says what it follows of n8n.

// AdapterError is an error of the adapter itself (an unknown node name, an
// item that does not exist): n8n's expressions let these through, where
// they turn other errors into an empty value.
class AdapterError extends Error {}

// wrap makes items of json objects: each pairs with its index, as n8n
// sets the pairedItem of a node's input items before it runs.
function wrap(list) {
  return (list || []).map(function (json, i) {
    return { json: json, pairedItem: { item: i } }
  })
}

// pairsOf is the index of the input item each output item pairs with, as
// n8n sets it after a node ran (WorkflowExecute.assignPairedItems): the
// pairedItem the node gave it (an input item returned keeps its own),
// else item 0 when one item came in, else
// item i when as many items came in as went out, else item 0 when one
// item went out; null where n8n has none, or several, or one of another
// input, which the flow does not follow (n8n's $('Node').item fails on
// the first, may follow the others).
// foreignPairs are the pairedItem objects of the items of other nodes the
// code is given ($('Node').all()): n8n's are those nodes' own pairs, which
// the flow does not know, so an item returned with one has none here.
var foreignPairs = new Set()

function pairsOf(out, nIn) {
  var nOut = out.length
  return out.map(function (it, i) {
    var p = it.pairedItem
    if (foreignPairs.has(p)) {
      return null
    }
    if (p === undefined) {
      if (nIn === 1) {
        return 0
      }
      if (nIn === nOut) {
        return i
      }
      if (nOut === 1 && nIn > 1) {
        return 0
      }
      return null
    }
    if (Array.isArray(p)) {
      if (p.length !== 1) {
        return null
      }
      p = p[0]
    }
    if (typeof p === 'number') {
      p = { item: p }
    }
    if (!isObject(p) || (p.input || 0) !== 0 || p.sourceOverwrite || typeof p.item !== 'number' || p.item < 0 || p.item >= nIn) {
      return null
    }
    return p.item
  })
}

// accessor is $input, or $('Node'): the items of a node; index is the
// current item's (for $input) or its paired item's (for a node).
function accessor(name, list, index) {
  return {
    all: function () { return list },
    first: function () { return list[0] },
    last: function () { return list[list.length - 1] },
    get item() {
      if (index === undefined) {
        throw new AdapterError('The paired item in the items of ' + name + ' is not known')
      }
      if (index >= list.length) {
        throw new AdapterError('No item ' + index + ' in the items of ' + name)
      }
      return list[index]
    },
    itemMatching: function (i) { return list[i] },
    isExecuted: true,
    params: {},
  }
}

// scope is the names n8n gives code and expressions.
function scope(input, perItem) {
  var items = wrap(input.items)
  var index = input.index || 0
  var nodes = {}
  foreignPairs = new Set()
  Object.keys(input.nodes || {}).forEach(function (name) {
    nodes[name] = wrap(input.nodes[name])
    nodes[name].forEach(function (it) { foreignPairs.add(it.pairedItem) })
  })
  // pairs: for each node the code names with .item, the index of each
  // input item's paired item in that node's items (n8n's pairedItem).
  var pairs = input.pairs || {}
  var $ = function (name) {
    if (!(name in nodes)) {
      throw new AdapterError('Referenced node "' + name + '" is unknown or has not run')
    }
    return accessor(name, nodes[name], name in pairs ? pairs[name][index] : undefined)
  }
  var $node = {}
  Object.keys(nodes).forEach(function (name) {
    Object.defineProperty($node, name, {
      enumerable: true,
      get: function () {
        // n8n's $node["Node"] is that node's item at the current index.
        var it = nodes[name][index]
        if (!it) {
          throw new AdapterError('"' + name + '" node has ' + nodes[name].length + " item(s) but you're trying to access item " + index)
        }
        return { json: it.json, parameter: {}, runIndex: 0, context: {} }
      },
    })
  })
  var current = items[perItem ? index : 0]
  return {
    $input: accessor('$input', items, index),
    $json: current ? current.json : undefined,
    $binary: {},
    $: $,
    $node: $node,
    $items: function (name) { return name === undefined ? items : $(name).all() },
    $itemIndex: index,
    $runIndex: 0,
    $workflow: { name: input.workflow, active: false },
    $prevNode: { name: input.prev || '', outputIndex: 0, runIndex: 0 },
    items: items,
    item: perItem ? current : undefined,
  }
}

// run runs a Code node's JavaScript as n8n does: the body of an async
// function, with the names of scope.
async function run(code, names) {
  var keys = Object.keys(names)
  var AsyncFunction = Object.getPrototypeOf(async function () {}).constructor
  var fn = new AsyncFunction(keys.join(', '), code + '\n')
  return await fn.apply({}, keys.map(function (k) { return names[k] }))
}

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

var itemKeys = ['json', 'binary', 'pairedItem', 'error', 'index']

// normalize turns what the code returned into items, with n8n's checks.
function normalize(result) {
  if (result === null || result === undefined) {
    return []
  }
  if (typeof result !== 'object') {
    throw new Error("Code doesn't return items properly: please return an array of objects, one for each item you would like to output.")
  }
  var list = Array.isArray(result) ? result : (result.json ? [result] : [{ json: result }])
  list.forEach(function (it) {
    if (!isObject(it)) {
      throw new Error("Code doesn't return items properly: please return an array of objects, one for each item you would like to output.")
    }
  })
  var withKey = list.filter(function (it) { return 'json' in it })
  if (withKey.length > 0 && withKey.length < list.length) {
    throw new Error('Inconsistent item format')
  }
  if (withKey.length === 0) {
    list = list.map(function (it) { return { json: it } })
  }
  return list.map(function (it, i) {
    Object.keys(it).forEach(function (k) {
      if (itemKeys.indexOf(k) < 0) {
        throw new Error('Unknown top-level item key: ' + k + ' [item ' + i + ']')
      }
    })
    if (!isObject(it.json)) {
      throw new Error("A 'json' property isn't an object [item " + i + ']')
    }
    return it
  })
}

// split cuts an n8n expression into text and code, as n8n does: {{ opens
// code (unless escaped by a backslash) and the next }} closes it.
function split(expr) {
  var chunks = []
  var open = true
  var buf = ''
  var i = 0
  while (i < expr.length) {
    var rest = expr.slice(i)
    var at = rest.indexOf(open ? '{{' : '}}')
    if (at < 0) {
      chunks.push({ code: !open, text: buf + rest })
      return chunks
    }
    var before = rest.slice(0, at)
    var slashes = before.match(/\\*$/)[0].length
    if (slashes % 2 === 1) {
      buf += rest.slice(0, at + 2)
      i += at + 2
      continue
    }
    buf += before
    chunks.push({ code: !open, text: open ? buf.replace(/\\\\/g, '\\') : buf.replace('\\}}', '}}') })
    open = !open
    buf = ''
    i += at + 2
  }
  if (buf !== '' || chunks.length === 0) {
    chunks.push({ code: !open, text: buf })
  }
  return chunks
}

// evaluate gives an n8n expression's value: one code part alone is its
// value; text with code parts joins them as text, an empty value (but 0
// and false) as nothing. An error other than the adapter's makes the
// part's value empty, as n8n's evaluator does.
function evaluate(expr, names) {
  if (typeof expr !== 'string' || expr.charAt(0) !== '=') {
    return expr
  }
  var chunks = split(expr.slice(1))
  var keys = Object.keys(names)
  var args = keys.map(function (k) { return names[k] })
  var value = function (code) {
    var src = code.trim().charAt(0) === '{' ? '(' + code + ')' : code
    try {
      var fn = new Function(keys.join(', '), 'return (' + src + '\n)')
      return fn.apply({}, args)
    } catch (e) {
      if (e instanceof AdapterError) {
        throw e
      }
      if (e instanceof SyntaxError) {
        throw new Error('invalid syntax in ' + JSON.stringify(code.trim()))
      }
      return undefined
    }
  }
  if (chunks.length === 2 && !chunks[0].code && chunks[0].text === '' && chunks[1].code) {
    return value(chunks[1].text)
  }
  return chunks.map(function (c) {
    if (!c.code) {
      return c.text
    }
    var v = value(c.text)
    return v || v === 0 || v === false ? v : ''
  }).join('')
}

// get reads a dot path, as lodash's get.
function get(obj, path) {
  var parts = String(path).replace(/\[(\w+)\]/g, '.$1').split('.').filter(function (p) { return p !== '' })
  var v = obj
  for (var i = 0; i < parts.length; i++) {
    if (v === null || v === undefined) {
      return undefined
    }
    v = v[parts[i]]
  }
  return v
}

// Split Out (n8n-nodes-base.splitOut): one item per element of a field.
function splitOut(items, p) {
  // n8n reads Destination Field Name and Disable Dot Notation from the
  // node's options.
  var opts = p.options || {}
  var fields = String(p.fieldToSplitOut || '').split(',').map(function (f) { return f.trim().replace(/^\$json\./, '') })
  var dests = String(opts.destinationFieldName || '').split(',').map(function (f) { return f.trim() }).filter(function (f) { return f !== '' })
  if (dests.length && dests.length !== fields.length) {
    throw new Error('If multiple fields to split out are given, the same number of destination fields must be given')
  }
  var include = p.include || 'noOtherFields'
  var out = []
  items.forEach(function (json) {
    var item = Object.assign({}, json)
    var rows = []
    fields.forEach(function (field, n) {
      var dest = dests[n] || ''
      var v = opts.disableDotNotation ? item[field] : get(item, field)
      if (v === undefined) {
        v = []
      }
      if (typeof v !== 'object' || v === null) {
        v = [v]
      }
      if (!Array.isArray(v)) {
        v = Object.values(v)
      }
      v.forEach(function (e, i) {
        rows[i] = rows[i] || {}
        if (typeof e === 'object' && e !== null && include === 'noOtherFields' && dest === '' && fields.length === 1) {
          rows[i] = Object.assign({}, rows[i], e)
        } else {
          rows[i][dest || field] = e
        }
      })
    })
    rows.forEach(function (row) {
      if (include === 'allOtherFields') {
        var copy = JSON.parse(JSON.stringify(item))
        fields.forEach(function (f) {
          if (opts.disableDotNotation) {
            delete copy[f]
          } else {
            unsetPath(copy, f)
          }
        })
        row = Object.assign(copy, row)
      } else if (include === 'selectedOtherFields') {
        var selected = String(p.fieldsToInclude || '').split(',').map(function (f) { return f.trim() }).filter(Boolean)
        if (!selected.length) {
          throw new Error('No fields specified')
        }
        selected.forEach(function (f) {
          row[f] = opts.disableDotNotation ? item[f] : get(item, f)
        })
      }
      out.push(row)
    })
  })
  return out
}

// Aggregate (n8n-nodes-base.aggregate): fields into lists, or all items
// into one list; one item.
function aggregate(items, p) {
  var out = {}
  if ((p.aggregate || 'aggregateIndividualFields') === 'aggregateIndividualFields') {
    var opts = p.options || {}
    ;((p.fieldsToAggregate || {}).fieldToAggregate || []).forEach(function (f) {
      var field = f.fieldToAggregate || ''
      if (field === '') {
        return
      }
      var name = f.renameField && f.outputFieldName ? f.outputFieldName
        : (!opts.disableDotNotation && field.indexOf('.') >= 0 ? field.split('.').pop() : field)
      var values = []
      items.forEach(function (json) {
        var v = opts.disableDotNotation ? json[field] : get(json, field)
        if (!opts.keepMissing) {
          if (Array.isArray(v)) {
            v = v.filter(function (e) { return e !== null })
          } else if (v === null || v === undefined) {
            return
          }
        }
        if (Array.isArray(v) && opts.mergeLists) {
          values.push.apply(values, v)
        } else {
          values.push(v)
        }
      })
      out[name] = values
    })
    return [out]
  }
  var include = (p.fieldsToInclude || '').split(',').map(function (f) { return f.trim() }).filter(Boolean)
  var exclude = (p.fieldsToExclude || '').split(',').map(function (f) { return f.trim() }).filter(Boolean)
  var list = items
  if (include.length || exclude.length) {
    list = []
    items.forEach(function (json) {
      var kept = {}
      Object.keys(json).forEach(function (k) {
        if ((exclude.length && exclude.indexOf(k) >= 0) || (include.length && include.indexOf(k) < 0)) {
          return
        }
        kept[k] = json[k]
      })
      if (Object.keys(kept).length) {
        list.push(kept)
      }
    })
  }
  out[p.destinationFieldName || 'data'] = list
  return [out]
}

// equal is lodash's isEqual for JSON values.
function equal(a, b) {
  if (a === b) {
    return true
  }
  if (typeof a === 'number' && typeof b === 'number') {
    return a !== a && b !== b
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return false
  }
  var ka = Object.keys(a)
  var kb = Object.keys(b)
  return ka.length === kb.length && ka.every(function (k) { return Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]) })
}

// less is lodash's lt: strings compare as text, anything else as numbers.
function less(a, b) {
  if (!(typeof a === 'string' && typeof b === 'string')) {
    a = Number(a)
    b = Number(b)
  }
  return a < b
}

// stableSort sorts with a comparison, keeping the order of equal items.
function stableSort(list, cmp) {
  return list.map(function (v, i) { return [v, i] }).sort(function (x, y) {
    return cmp(x[0], y[0]) || x[1] - y[1]
  }).map(function (x) { return x[0] })
}

// sort (n8n-nodes-base.sort) by fields: text without case; or by code.
async function sort(items, p, names) {
  if (p.type === 'code') {
    var wrapped = wrap(items)
    var sorted = await run('return items.sort((a, b) => { ' + p.code + ' })', Object.assign({}, names, { items: wrapped }))
    return normalize(sorted).map(function (it) { return it.json })
  }
  if (p.type === 'random') {
    var copy = items.slice()
    for (var i = copy.length - 1; i > 0; i--) {
      var j = Math.floor(Math.random() * (i + 1))
      var t = copy[i]
      copy[i] = copy[j]
      copy[j] = t
    }
    return copy
  }
  var fields = ((p.sortFieldsUi || {}).sortField || [])
  if (!fields.length) {
    throw new Error('No sorting specified. Please add a field to sort by')
  }
  var dot = !(p.options || {}).disableDotNotation
  var read = function (json, name) {
    var v = dot ? get(json, name) : json[name]
    return typeof v === 'string' ? v.toLowerCase() : v
  }
  fields.forEach(function (f) {
    var found = items.some(function (json) { return dot ? get(json, f.fieldName) !== undefined : Object.prototype.hasOwnProperty.call(json, f.fieldName) })
    if (!found) {
      throw new Error("Couldn't find the field '" + f.fieldName + "' in the input data")
    }
  })
  return stableSort(items, function (a, b) {
    for (var k = 0; k < fields.length; k++) {
      var dir = fields[k].order === 'descending' ? -1 : 1
      var x = read(a, fields[k].fieldName)
      var y = read(b, fields[k].fieldName)
      if (!equal(x, y)) {
        return less(x, y) ? -dir : dir
      }
    }
    return 0
  })
}

var months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
var days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

function pad(n, w) {
  var s = String(n)
  while (s.length < w) {
    s = '0' + s
  }
  return s
}

function ordinal(n) {
  var rest = n % 100
  if (rest >= 11 && rest <= 13) {
    return n + 'th'
  }
  return n + (['th', 'st', 'nd', 'rd'][n % 10] || 'th')
}

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

async function execute(input) {
  var out = await executeMode(input)
  // Only the Code node run once for all items gives pairs.
  if (out.pairs === undefined) {
    out.pairs = null
  }
  return out
}

async function executeMode(input) {
  var items = input.items || []
  var mode = input.mode
  var names
  switch (mode) {
    case 'runOnceForAllItems':
      if (items.length === 0) {
        return { items: [], values: null }
      }
      names = scope(input, false)
      var out = normalize(await run(input.code, names))
      return { items: out.map(function (it) { return it.json }), values: null, pairs: pairsOf(out, items.length) }
    case 'runOnceForEachItem': {
      names = scope(input, true)
      var result = await run(input.code, names)
      if (result === null || result === undefined) {
        return { items: [], values: null }
      }
      if (typeof result !== 'object' || Array.isArray(result)) {
        throw new Error("Code doesn't return a single object [item " + (input.index || 0) + ']')
      }
      var json = 'json' in result ? result.json : result
      if (!isObject(json)) {
        throw new Error("A 'json' property isn't an object [item " + (input.index || 0) + ']')
      }
      return { items: [json], values: null }
    }
    case 'expressions': {
      names = Object.assign(scope(input, true), n8nTimeNames(input.zone)) // n8n_time.js
      var values = {}
      Object.keys(input.expressions || {}).forEach(function (k) {
        values[k] = evaluate(input.expressions[k], names)
      })
      return { items: [], values: values }
    }
    case 'splitOut':
      return { items: splitOut(items, input.params || {}), values: null }
    case 'aggregate':
      return { items: items.length ? aggregate(items, input.params || {}) : [], values: null }
    case 'sort':
      return { items: await sort(items, input.params || {}, scope(input, false)), values: null }
    case 'scheduleTrigger':
      return { items: scheduleTrigger(), values: null }
    case 'combineByPosition':
      return { items: combineByPosition(input.params || {}), values: null }
    case 'combineAll':
      return { items: combineAll(input.params || {}), values: null }
    case 'ifV1':
      return { items: ifV1(input.params || {}), values: null }
    case 'switchV1':
      return { items: switchV1(input.params || {}), values: null }
    case 'mergeV1':
      return { items: mergeV1(input.params || {}), values: null }
    case 'combineByFields':
      return { items: combineByFields(input.params || {}), values: null }
    case 'function':
      return { items: await functionNode(input), values: null }
    case 'functionItem':
      return { items: await functionItem(input), values: null }
    case 'removeDuplicates':
      return { items: items.length ? removeDuplicates(items, input.params || {}) : [], values: null }
    case 'itemListsSplitOut':
      return { items: itemListsSplitOut(items, input.params || {}), values: null }
    case 'compareDatasets':
      return { items: compareDatasets(input.params || {}), values: null }
    case 'summarize':
      return { items: items.length ? summarize(items, input.params || {}) : [], values: null }
    case 'renameKeys':
      return { items: items.map(function (json) { return renameKeys(json, input.params || {}) }), values: null }
    case 'stopAndError':
      // n8n's Stop and Error fails the workflow with its message.
      throw new Error(String((input.params || {}).message))
  }
  throw new Error('unknown mode ' + mode)
}
