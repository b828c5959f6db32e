//! Calculator: four operations through its keys, and clearing. Our own
//! idea and checks; keys are found by their names ("7", "+", "×" or
//! "times"), the result is any number the page shows outside its keys.
import { button, showsNumber, readouts, until } from '../checks.mjs';

const KEYS = {
  '+': /^\s*(\+|plus|add)\s*$/i,
  '-': /^\s*(-|−|–|minus|subtract)\s*$/i,
  '*': /^\s*(\*|×|x|✕|times|multiply)\s*$/i,
  '/': /^\s*(\/|÷|divide|divided by)\s*$/i,
  '=': /^\s*(=|equals?|enter)\s*$/i,
  C: /^\s*(c|ac|ce|clear|clear all|reset)\s*$/i,
};

async function press(page, keys) {
  for (const k of keys) await button(page, KEYS[k] ?? new RegExp(`^\\s*${k}\\s*$`)).click();
}

const sum = (keys, result) => ({
  name: `${keys.join(' ')} = shows ${result}`,
  run: async ({ page }) => {
    await press(page, ['C', ...keys, '=']);
    await showsNumber(page, result);
  },
});

export default {
  id: 'calculator',
  title: 'Calculator',
  idea: 'A calculator with buttons for the digits 0-9, + − × ÷, = and C to clear, and a display showing what I type and the result.',
  checks: [
    sum(['7', '+', '8'], 15),
    sum(['1', '2', '-', '5'], 7),
    sum(['9', '*', '6'], 54),
    sum(['8', '/', '2'], 4),
    {
      name: 'C clears the display to 0 or nothing',
      run: async ({ page }) => {
        await press(page, ['C', '4', '2']);
        await showsNumber(page, 42);
        await press(page, ['C']);
        await until(async () => !(await readouts(page)).some((s) => /42/.test(s)), 'after C the display still shows 42');
      },
    },
  ],
};
