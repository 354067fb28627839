// The Markdown node (Markdown.node.js) for one item, with the packages
// n8n computes it with: node-html-markdown for HTML to Markdown, showdown
// for Markdown to HTML, the result set at the destination key of a copy
// of the item's json (lodash's set).

import { NodeHtmlMarkdown } from 'node-html-markdown'
import showdown from 'showdown'
import set from 'lodash/set'
import isEmpty from 'lodash/isEmpty'

// What the packages read of Node and V8 that goja has not: process.env
// (node-html-markdown reads LOG_PERF; n8n sets none of them) and the
// legacy RegExp.$1…$9 that V8 sets on a match, which showdown reads after
// a test.
function shim() {
  if (typeof process === 'undefined') {
    globalThis.process = { env: {} }
  }
  if (RegExp.prototype.test.flowctlLegacy) {
    return
  }
  var exec = RegExp.prototype.exec
  var test = function (s) {
    var m = exec.call(this, s)
    if (m) {
      for (var i = 1; i <= 9; i++) {
        RegExp['$' + i] = m[i] === undefined ? '' : m[i]
      }
    }
    return m !== null
  }
  test.flowctlLegacy = true
  RegExp.prototype.test = test
}
function execute(input) {
  shim()
  var options = JSON.parse(JSON.stringify(input.options || {}))
  var result
  if (input.mode === 'htmlToMarkdown') {
    var textReplaceOption = (options.textReplace && options.textReplace.values) || []
    options.textReplace = !isEmpty(textReplaceOption)
      ? textReplaceOption.map(function (entry) { return [entry.pattern, entry.replacement] })
      : undefined
    var lineStartEscapeOption = (options.lineStartEscape && options.lineStartEscape.value) || {}
    options.lineStartEscape = !isEmpty(lineStartEscapeOption)
      ? [lineStartEscapeOption.pattern, lineStartEscapeOption.replacement]
      : undefined
    var globalEscapeOption = (options.globalEscape && options.globalEscape.value) || {}
    options.globalEscape = !isEmpty(globalEscapeOption)
      ? [globalEscapeOption.pattern, globalEscapeOption.replacement]
      : undefined
    options.ignore = options.ignore
      ? options.ignore.split(',').map(function (element) { return element.trim() })
      : undefined
    options.blockElements = options.blockElements
      ? options.blockElements.split(',').map(function (element) { return element.trim() })
      : undefined
    var markdownOptions = {}
    Object.keys(options).forEach(function (option) {
      if (options[option]) {
        markdownOptions[option] = options[option]
      }
    })
    result = NodeHtmlMarkdown.translate(input.text, markdownOptions)
  } else if (input.mode === 'markdownToHtml') {
    var converter = new showdown.Converter()
    Object.keys(options).forEach(function (key) { converter.setOption(key, options[key]) })
    result = converter.makeHtml(input.text)
  } else {
    throw new Error('unknown mode ' + input.mode)
  }
  var json = JSON.parse(JSON.stringify(input.item))
  set(json, input.destination, result)
  return { json: json }
}
