// The test harness, at the top of each test worker (classic script, inside
// the sandbox frame's opaque origin; no DOM). Test files call
// test(name, fn) / it / describe, beforeEach / afterEach, with assert and a small expect; a file without
// test() calls passes if its top-level code runs without throwing, and
// exported functions named test* run as tests.
'use strict';
const registered = [];
self.test = self.it = (name, fn) => { registered.push({ name: String(name), fn }); };
self.describe = (name, fn) => fn();
const before = [];
const after = [];
self.beforeEach = (fn) => { before.push(fn); };
self.afterEach = (fn) => { after.push(fn); };
class AssertionError extends Error { constructor(message) { super(message); this.name = 'AssertionError'; } }
const show = (v) => { try { return JSON.stringify(v); } catch (e) { return String(v); } };
const same = (a, b) => Object.is(a, b) || a === b;
const fail = (message) => { throw new AssertionError(message); };
const assert = (cond, message) => { if (!cond) fail(message || 'assertion failed'); };
assert.ok = assert;
assert.equal = assert.strictEqual = (a, b, m) => { if (!same(a, b)) fail(m || `expected ${show(b)} but got ${show(a)}`); };
assert.notEqual = assert.notStrictEqual = (a, b, m) => { if (same(a, b)) fail(m || `expected anything but ${show(b)}`); };
assert.deepEqual = assert.deepStrictEqual = (a, b, m) => { if (show(a) !== show(b)) fail(m || `expected ${show(b)} but got ${show(a)}`); };
assert.throws = (fn, m) => { try { fn(); } catch (e) { return; } fail(m || 'expected the function to throw'); };
self.assert = assert;
self.expect = (actual) => {
  const checks = (negate) => {
    const check = (ok, message) => { if (ok === negate) fail(negate ? `not: ${message}` : message); };
    return {
      toBe: (e) => check(same(actual, e), `expected ${show(e)} but got ${show(actual)}`),
      toEqual: (e) => check(show(actual) === show(e), `expected ${show(e)} but got ${show(actual)}`),
      toStrictEqual: (e) => check(show(actual) === show(e), `expected ${show(e)} but got ${show(actual)}`),
      toBeTruthy: () => check(!!actual, `expected a truthy value but got ${show(actual)}`),
      toBeFalsy: () => check(!actual, `expected a falsy value but got ${show(actual)}`),
      toBeNull: () => check(actual === null, `expected null but got ${show(actual)}`),
      toBeUndefined: () => check(actual === undefined, `expected undefined but got ${show(actual)}`),
      toBeGreaterThan: (e) => check(actual > e, `expected ${show(actual)} > ${show(e)}`),
      toBeLessThan: (e) => check(actual < e, `expected ${show(actual)} < ${show(e)}`),
      toContain: (e) => check(actual != null && actual.includes(e), `expected ${show(actual)} to contain ${show(e)}`),
      toHaveLength: (n) => check(actual != null && actual.length === n, `expected length ${n} but got ${actual == null ? actual : actual.length}`),
      toThrow: () => { let threw = false; try { actual(); } catch (e) { threw = true; } check(threw, 'expected the function to throw'); },
    };
  };
  return Object.assign(checks(false), { not: checks(true) });
};
const describeError = (e) => String((e && (e.stack || e.message)) || e).slice(0, 4000);
const isLoadError = (e) => e instanceof SyntaxError || (e instanceof TypeError && /import|module/i.test(String(e.message)));
async function runFile(file, url) {
  const results = [];
  let mod;
  try {
    mod = await import(url);
  } catch (e) {
    results.push({ file, name: '(loading the file)', outcome: isLoadError(e) ? 'error' : 'failed', message: describeError(e) });
    postMessage(results);
    return;
  }
  if (!registered.length) {
    for (const [name, fn] of Object.entries(mod)) if (typeof fn === 'function' && /^test/i.test(name)) registered.push({ name, fn });
  }
  if (!registered.length) results.push({ file, name: '(the file ran without errors)', outcome: 'passed', message: '' });
  for (const t of registered) {
    try {
      for (const hook of before) await hook();
      await t.fn();
      for (const hook of after) await hook();
      results.push({ file, name: t.name, outcome: 'passed', message: '' });
    } catch (e) {
      results.push({ file, name: t.name, outcome: 'failed', message: describeError(e) });
    }
  }
  postMessage(results);
}
