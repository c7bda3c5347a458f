export const simulatorCss = `
* { box-sizing: border-box; }
body { margin: 0; font-family: system-ui, sans-serif; background: #eef1f4; color: #1d232a; }
main { display: flex; flex-wrap: wrap; gap: 2rem; padding: 2rem; justify-content: center; align-items: flex-start; }
.phone {
  width: 300px;
  padding: 1.25rem 1rem 1.5rem;
  border-radius: 36px;
  background: #2b3138;
  box-shadow: 0 12px 30px #0005;
}
.earpiece { width: 70px; height: 6px; margin: 0 auto 1rem; border-radius: 3px; background: #555d66; }
.screen {
  background: #c9dcb3;
  border: 4px solid #1b1f24;
  border-radius: 8px;
  padding: .5rem;
  min-height: 250px;
  display: flex;
  flex-direction: column;
}
.status {
  display: flex;
  justify-content: space-between;
  font-size: .7rem;
  border-bottom: 1px solid #8fa07c;
  margin-bottom: .4rem;
}
#display { flex: 1; margin: 0; font: 13px/1.35 ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; }
#entry { display: flex; gap: .3rem; margin-top: .4rem; }
#input {
  flex: 1;
  min-width: 0;
  font: 14px ui-monospace, monospace;
  padding: .25rem;
  border: 1px solid #6d7a5f;
  background: #e4efd6;
}
#send { font-size: .8rem; }
.keys { display: grid; grid-template-columns: repeat(3, 1fr); gap: .5rem; margin-top: 1rem; }
.keys button {
  padding: .55rem 0;
  border: 0;
  border-radius: 12px;
  background: #48515b;
  color: #fff;
  font-size: 1.1rem;
  cursor: pointer;
}
.keys button small { display: block; font-size: .55rem; opacity: .7; }
.keys button:active { background: #66717c; }
.keys .call { background: #2f8f46; font-size: .9rem; }
.keys .hangup { background: #b53a33; font-size: .9rem; }
.keys #clear { font-size: .9rem; }
.settings { max-width: 420px; }
.settings label { display: block; margin: .6rem 0; font-size: .9rem; }
.settings input:not([type=checkbox]), .settings select {
  display: block;
  width: 100%;
  padding: .35rem;
  font: 14px ui-monospace, monospace;
}
#log { font: 12px ui-monospace, monospace; padding-left: 1.4rem; }
#log li { margin-bottom: .3rem; }
`
