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

// expressionNames are the names n8n gives its expressions beside those of
// scope: $item(i) (n8n-workflow's WorkflowDataProxy, the names of item i,
// whose $node and $json read item i; a run index other than the one run's
// is refused) and $ifEmpty (its extended functions).
function expressionNames(input) {
  return {
    $item: function (i, runIndex) {
      if (runIndex !== undefined && runIndex !== 0 && runIndex !== -1) {
        throw new AdapterError('$item(' + i + ', ' + runIndex + '): the flow runs each node once')
      }
      var names = scope(Object.assign({}, input, { index: i }), true)
      var list = input.items || []
      if (list[i] === undefined) {
        // n8n fails reading $json of an item the input does not have.
        Object.defineProperty(names, '$json', {
          get: function () {
            throw new AdapterError('the input has ' + list.length + " item(s) but you're trying to access item " + i)
          },
        })
      }
      return names
    },
    $ifEmpty: function (value, defaultValue) {
      if (arguments.length !== 2) {
        throw new AdapterError('expected two arguments (value, defaultValue) for this function')
      }
      if (value === undefined || value === null || value === '') {
        return defaultValue
      }
      if (typeof value === 'object') {
        if (Array.isArray(value) && !value.length) {
          return defaultValue
        }
        if (!Object.keys(value).length) {
          return defaultValue
        }
      }
      return value
    },
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
      names = Object.assign(scope(input, true), n8nTimeNames(input.zone), expressionNames(input)) // n8n_time.js
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
