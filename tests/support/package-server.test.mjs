// Self-test of the package server: real packages, built, served with
// esm.sh's URL scheme; shared packages stay bare imports; 404s say why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startPackageServer } from './package-server.mjs';

const dataUrl = (text) => `data:text/javascript;base64,${Buffer.from(text).toString('base64')}`;

test('serves real packages as ES modules in the CDN\'s URL scheme', async () => {
  const cdn = await startPackageServer();
  try {
    const get = async (p) => {
      const r = await fetch(cdn.url + p);
      return { status: r.status, text: await r.text(), cors: r.headers.get('access-control-allow-origin') };
    };
    const react = await get('/react@18.3.1?external=chart.js,react-dom');
    assert.equal(react.status, 200);
    assert.equal(react.cors, '*');
    // The module runs: React's own createElement, from its own files.
    const React = await import(dataUrl(react.text));
    assert.equal(React.version, '18.3.1');
    assert.equal(React.createElement('b', null, 'hi').props.children, 'hi');
    assert.equal(typeof React.default.useState, 'function');
    // react-dom/client keeps react and react-dom bare (one copy of each).
    const client = await get('/react-dom@18.3.1/client');
    assert.equal(client.status, 200);
    assert.match(client.text, /from"react-dom"|from "react-dom"/);
    assert.doesNotMatch(client.text, /function useState|__SECRET_INTERNALS_DO_NOT_USE_OR_YOU_WILL_BE_FIRED=/, 'React itself is not inside react-dom/client');
    const dom = await get('/react-dom@18');
    assert.equal(dom.status, 200, 'a major version matches');
    assert.match(dom.text, /import \* as __shared0 from "react"/);
    // An ES package with its own dependency bundled in (chart.js + @kurkle/color).
    const chart = await import(dataUrl((await get('/chart.js@4.6.1/auto')).text));
    assert.equal(typeof chart.default, 'function');
    assert.equal(chart.default.version, '4.6.1');
    const hooks = await get('/preact@10.27.2/hooks');
    assert.match(hooks.text, /from"preact"|from "preact"/);
    const tailwind = await get('/@tailwindcss/browser@4/dist/index.global.js?raw');
    assert.equal(tailwind.status, 200);
    assert.ok(tailwind.text.length > 100_000, 'the browser build, as published');
    assert.equal((await get('/react@17.0.2')).status, 404);
    assert.match((await get('/react@17.0.2')).text, /has react@18\.3\.1, not react@17\.0\.2/);
    assert.match((await get('/left-pad')).text, /no package "left-pad"/);
    assert.equal((await get('/react@18.3.1/server')).status, 404);
    assert.ok(cdn.requests.includes('/react@18.3.1?external=chart.js,react-dom'));
  } finally {
    await cdn.close();
  }
});
