/** The simulator page: a feature phone on the left, the aggregator's settings on the right. */
export const simulatorHtml = (appName: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${appName} - USSD phone simulator</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/simulator/style.css">
<script src="/simulator/app.js" defer></script>
</head>
<body>
<main>
  <section class="phone" aria-label="Feature phone">
    <div class="earpiece"></div>
    <div class="screen">
      <div class="status"><span id="network">Safaricom</span><span id="session-state">Idle</span></div>
      <pre id="display" aria-live="polite">Dial a USSD code, e.g. *384*123#, and press Call.</pre>
      <form id="entry" autocomplete="off">
        <input id="input" name="input" aria-label="Input" maxlength="182" placeholder="*384*123#">
        <button id="send" type="submit">Send</button>
      </form>
    </div>
    <div class="keys" id="keypad">
      <button type="button" id="call" class="call">Call</button>
      <button type="button" id="clear">Clear</button>
      <button type="button" id="hangup" class="hangup">End</button>
      <button type="button" data-key="1">1</button>
      <button type="button" data-key="2">2<small>abc</small></button>
      <button type="button" data-key="3">3<small>def</small></button>
      <button type="button" data-key="4">4<small>ghi</small></button>
      <button type="button" data-key="5">5<small>jkl</small></button>
      <button type="button" data-key="6">6<small>mno</small></button>
      <button type="button" data-key="7">7<small>pqrs</small></button>
      <button type="button" data-key="8">8<small>tuv</small></button>
      <button type="button" data-key="9">9<small>wxyz</small></button>
      <button type="button" data-key="*">*</button>
      <button type="button" data-key="0">0</button>
      <button type="button" data-key="#">#</button>
    </div>
  </section>
  <section class="settings" aria-label="Aggregator settings">
    <h1>USSD simulator</h1>
    <p>Drives <code>POST /api/ussd</code> exactly as Africa's Talking does: form bodies, a cumulative
      <code>text</code>, and the end-of-session notification when you hang up.</p>
    <label>Phone number <input id="phone" value="+254712345678" pattern="^\\+?[1-9][0-9]{6,14}$"></label>
    <label>Programme <select id="programme"><option value="">Any code (type it below)</option></select></label>
    <label>Service code <input id="service-code" value="*384*123#"></label>
    <label>Network code <input id="network-code" value="63902"></label>
    <label><input type="checkbox" id="json"> Send JSON instead of form bodies</label>
    <h2>Hops</h2>
    <ol id="log"></ol>
    <h2>SMS sent by the gateway</h2>
    <ol id="sms" aria-live="polite"></ol>
  </section>
</main>
</body>
</html>
`
