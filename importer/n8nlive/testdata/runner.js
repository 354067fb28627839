// Starts n8n's JavaScript task runner (@n8n/task-runner), which runs the
// Code nodes of an `n8n execute`, for importer/n8nlive.
//
// Left to itself (N8N_RUNNERS_MODE=internal), n8n starts the runner with a
// grant token that is good for 15 seconds, and refuses it (403) when the
// runner takes longer to load its modules and connect: on a busy 2-core
// machine it takes 20 seconds and more, and every Code node then times
// out. The test runs n8n with N8N_RUNNERS_MODE=external and this program
// as the runner: it loads the runner's modules first, then asks n8n's
// task broker for a grant token (with N8N_RUNNERS_AUTH_TOKEN, as n8n's
// own launcher does), waiting for the broker to be up, and starts the
// runner with it at once.
//
// Environment: N8N_MODULES, the node_modules holding n8n; the runner's
// own variables (N8N_RUNNERS_TASK_BROKER_URI, N8N_RUNNERS_AUTH_TOKEN…).
'use strict'
const http = require('node:http')
const path = require('node:path')

const start = require.resolve('@n8n/task-runner/start', { paths: [process.env.N8N_MODULES] })
const dir = path.dirname(start)
// What start.js loads, from the same place, so that it finds them loaded.
for (const m of ['config/main-config.js', 'js-task-runner/js-task-runner.js', 'task-runner-sentry.js']) {
  require(path.join(dir, m))
}

// post sends one request on a connection of its own, closed after the
// answer: once the runner has started, it freezes the prototypes of the
// built-ins, and the error fetch would make when the broker closes an idle
// kept-alive connection (undici's SocketError sets its name) would end
// the runner.
function post(url, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode, text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

async function grantToken() {
  const url = process.env.N8N_RUNNERS_TASK_BROKER_URI + '/runners/auth'
  for (;;) {
    let res
    try {
      res = await post(url, { token: process.env.N8N_RUNNERS_AUTH_TOKEN })
    } catch (e) {
      // The broker is not listening yet.
    }
    if (res && res.status === 200) {
      return JSON.parse(res.text).data.token
    }
    if (res && res.status === 403) {
      throw new Error('the task broker refuses N8N_RUNNERS_AUTH_TOKEN')
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

grantToken().then(
  (token) => {
    process.env.N8N_RUNNERS_GRANT_TOKEN = token
    require(start)
  },
  (e) => {
    console.error('runner.js:', e.message)
    process.exit(1)
  },
)
