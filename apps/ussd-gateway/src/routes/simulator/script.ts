/**
 * Browser code of the simulator (served as /simulator/app.js). It behaves like an aggregator:
 * a session id per call, the cumulative text joined with `*`, form-encoded posts, and the
 * end-of-session notification on hang-up. No inline script, so the page runs under a strict CSP.
 */
export const simulatorJs = `'use strict'
const $ = (id) => document.getElementById(id)
const display = $('display'), input = $('input'), log = $('log'), stateLabel = $('session-state')
let session = null

const fields = () => ({
  phoneNumber: $('phone').value.trim(),
  serviceCode: $('service-code').value.trim(),
  networkCode: $('network-code').value.trim()
})

function show (text, state) {
  display.textContent = text
  stateLabel.textContent = state
  input.value = ''
  input.placeholder = session ? 'Reply' : fields().serviceCode
  input.focus()
}

function record (text, reply) {
  const item = document.createElement('li')
  item.textContent = 'hop ' + session.hops + ' (' + text.length + ' chars of text) -> ' + reply.split('\\n')[0]
  log.prepend(item)
}

async function post (url, body) {
  const json = $('json').checked
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: json ? JSON.stringify(body) : new URLSearchParams(body).toString()
  })
  return await response.text()
}

async function hop (text) {
  const { phoneNumber, networkCode } = fields()
  session.hops += 1
  let reply
  try {
    const { id: sessionId, serviceCode } = session
    reply = await post('/api/ussd', { sessionId, serviceCode, phoneNumber, networkCode, text })
  } catch {
    session = null
    show('Connection problem or invalid MMI code.', 'Idle')
    return
  }
  session.text = text
  record(text, reply)
  if (reply.startsWith('CON ')) {
    show(reply.slice(4), 'Session')
  } else {
    session = null
    show(reply.startsWith('END ') ? reply.slice(4) : 'Connection problem or invalid MMI code.', 'Ended')
  }
}

// A dialled code that extends the configured one (*384*123*1*2#) starts with text "1*2".
async function call () {
  const dialled = input.value.trim()
  const base = fields().serviceCode
  if (!/^\\*\\d+(\\*\\d+)*#$/.test(dialled)) {
    show('Invalid MMI code. Dial a code like ' + base, 'Idle')
    return
  }
  const stem = base.slice(0, -1)
  const extra = dialled !== base && dialled.startsWith(stem + '*') ? dialled.slice(stem.length + 1, -1) : ''
  const serviceCode = extra !== '' || dialled === base ? base : dialled
  session = { id: 'SIM_' + crypto.randomUUID(), serviceCode, text: '', hops: 0 }
  log.replaceChildren()
  show('Running USSD code...', 'Session')
  await hop(extra)
}

async function hangUp () {
  if (session === null) return
  const ended = session
  session = null
  show('Session ended.', 'Idle')
  await post('/api/ussd/events', {
    sessionId: ended.id,
    phoneNumber: fields().phoneNumber,
    serviceCode: ended.serviceCode,
    status: 'Incomplete',
    hopsCount: String(ended.hops)
  })
}

$('entry').addEventListener('submit', (event) => {
  event.preventDefault()
  if (session === null) { void call(); return }
  const value = input.value
  void hop(session.text === '' ? value : session.text + '*' + value)
})
$('call').addEventListener('click', () => { if (session === null) void call() })
$('hangup').addEventListener('click', () => { void hangUp() })
$('clear').addEventListener('click', () => { input.value = input.value.slice(0, -1); input.focus() })
for (const key of document.querySelectorAll('[data-key]')) {
  key.addEventListener('click', () => { input.value += key.dataset.key; input.focus() })
}
input.focus()

// The configured programmes' service codes: picking one makes it the code to dial (and Call dials it).
const picker = $('programme')
function pick () {
  if (picker.value === '') return
  $('service-code').value = picker.value
  if (session === null) {
    input.value = picker.value
    display.textContent = 'Dial ' + picker.value + ' (' + picker.selectedOptions[0].dataset.name + ') and press Call.'
  }
}
async function refreshProgrammes () {
  try {
    const response = await fetch('/simulator/programmes', { cache: 'no-store' })
    const { programmes } = await response.json()
    const chosen = $('service-code').value.trim()
    picker.replaceChildren(picker.options[0], ...programmes.map((programme) => {
      const option = document.createElement('option')
      option.value = programme.serviceCode
      option.dataset.name = programme.name
      option.textContent = programme.serviceCode + ' - ' + programme.name
      return option
    }))
    picker.value = programmes.some((programme) => programme.serviceCode === chosen) ? chosen : ''
  } catch {}
}
picker.addEventListener('change', pick)
// A reloaded programmes file shows when the page is looked at again (not on focus: that would close the list).
document.addEventListener('visibilitychange', () => { if (!document.hidden) void refreshProgrammes() })
$('service-code').addEventListener('input', () => {
  const typed = $('service-code').value.trim()
  picker.value = [...picker.options].some((option) => option.value === typed) ? typed : ''
})
void refreshProgrammes()

// SMS the gateway sent (or, with SMS off, would have sent), polled while the page is visible.
async function refreshSms () {
  if (document.hidden) return
  try {
    const response = await fetch('/simulator/sms', { cache: 'no-store' })
    const { enabled, messages } = await response.json()
    const list = $('sms')
    if (!enabled) { list.replaceChildren(); return }
    list.replaceChildren(...messages.map((sms) => {
      const item = document.createElement('li')
      const status = sms.status === 'off' ? 'not sent, SMS off' : sms.status
      item.textContent = sms.at.slice(11, 19) + ' to ' + sms.to + ' (' + sms.kind + ', ' + status + '): ' + sms.text
      return item
    }))
  } catch {}
}
setInterval(() => { void refreshSms() }, 2000)
void refreshSms()
`
