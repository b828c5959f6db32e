// The hostile-CSS test page (hostile.html): embeds one widget by markup and one with mount(),
// listens to their events and lists them. No inline script, no eval: it
// runs under the strict CSP documented in pkg/README.md.
//
// Query parameters (used by the end-to-end test, handy by hand):
//   base=<provider base URL>  model=<model>  team=assistant|company
//   price-in / price-out (dollars per million tokens)  budget
// With `base`, both widgets use an OpenAI-compatible provider there.
const query = new URLSearchParams(location.search);
const provider = {};
if (query.get('base')) {
  Object.assign(provider, { preset: 'custom', baseUrl: query.get('base'), priceIn: 1, priceOut: 2 });
}
for (const [param, option] of [['model', 'model'], ['team', 'team'], ['budget', 'budget'], ['price-in', 'priceIn'], ['price-out', 'priceOut']]) {
  if (query.get(param) !== null) provider[option] = ['budget', 'priceIn', 'priceOut'].includes(option) ? Number(query.get(param)) : query.get(param);
}

// The markup widget: attributes are read when the element upgrades, so set
// them before the package defines <tabteam-agent>.
const support = document.getElementById('support');
const attribute = { preset: 'preset', baseUrl: 'base-url', model: 'model', team: 'team', budget: 'budget', priceIn: 'price-in', priceOut: 'price-out' };
for (const [option, value] of Object.entries(provider)) support.setAttribute(attribute[option], String(value));

const EVENTS = ['message', 'plan-updated', 'ask-human', 'reply-to-human', 'cost', 'finished', 'error', 'ready'];
const demo = { events: [], getKeyCalls: 0, handles: {} };
window.tabteamDemo = demo;
const list = document.getElementById('events');
function listen(element, widget) {
  for (const name of EVENTS) {
    element.addEventListener(name, (event) => {
      demo.events.push({ widget, name, detail: event.detail });
      const li = document.createElement('li');
      li.textContent = `${widget} · ${name} · ${JSON.stringify(event.detail).slice(0, 160)}`;
      list.append(li);
    });
  }
}
listen(support, 'support');
const docsHost = document.getElementById('docs-host');
listen(docsHost, 'docs');

const { mount } = await import('./pkg/tabteam-widget.js');
demo.mount = mount;
demo.handles.docs = await mount(docsHost, {
  heading: 'Docs helper',
  storageKey: 'acme-docs',
  placeholder: 'Ask about the docs…',
  team: 'assistant',
  ...provider,
  keySource: 'host',
  // The host hands the key over per call (here from its own field; a real
  // host might fetch a short-lived token from its backend).
  getKey: async () => {
    demo.getKeyCalls += 1;
    return document.getElementById('proxy-token').value;
  },
});
demo.ready = true;
document.documentElement.dataset.ready = 'true';
