// An evaluator for the ledger's `substituted` column, the TypeScript twin of tests/cpp/expression.cpp, written
// apart from the engine: numbers (thousands separators, a decimal part, an optional " B"), + − - × /,
// parentheses, min(…), max(…), ⌈…⌉, ⌊…⌋ and a number raised by superscript digits (10⁹). Anything else — a word,
// a stray symbol — throws.

const SUPERSCRIPTS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

export function evaluateExpression(text: string): number {
  let pos = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at ${pos} of "${text}"`);
  };
  const spaces = () => {
    while (text[pos] === ' ') pos += 1;
  };
  const take = (token: string): boolean => {
    spaces();
    if (!text.startsWith(token, pos)) return false;
    pos += token.length;
    return true;
  };
  const sum = (): number => {
    let value = product();
    for (;;) {
      if (take('+')) value += product();
      else if (take('−') || take('-')) value -= product();
      else return value;
    }
  };
  const product = (): number => {
    let value = unary();
    for (;;) {
      if (take('×')) value *= unary();
      else if (take('/')) value /= unary();
      else return value;
    }
  };
  const unary = (): number => (take('−') || take('-') ? -unary() : power());
  const power = (): number => {
    const base = atom();
    let exponent = '';
    while (pos < text.length && SUPERSCRIPTS.includes(text[pos]!)) exponent += String(SUPERSCRIPTS.indexOf(text[pos++]!));
    return exponent === '' ? base : base ** Number(exponent);
  };
  const args = (): number[] => {
    if (!take('(')) fail('expected (');
    const out = [sum()];
    while (take(', ')) out.push(sum());
    if (!take(')')) fail('expected )');
    return out;
  };
  const atom = (): number => {
    spaces();
    if (take('(')) {
      const value = sum();
      if (!take(')')) fail('expected )');
      return value;
    }
    if (take('⌈')) {
      const value = sum();
      if (!take('⌉')) fail('expected ⌉');
      return Math.ceil(value);
    }
    if (take('⌊')) {
      const value = sum();
      if (!take('⌋')) fail('expected ⌋');
      return Math.floor(value);
    }
    if (take('min')) return Math.min(...args());
    if (take('max')) return Math.max(...args());
    return number();
  };
  const number = (): number => {
    const match = /^\d+(?:,\d{3}(?!\d))*(?:\.\d+)?/.exec(text.slice(pos));
    if (!match) return fail('expected a number');
    pos += match[0].length;
    const after = /^ ?B(?![A-Za-z])/.exec(text.slice(pos));
    if (after) pos += after[0].length;
    return Number(match[0].replaceAll(',', ''));
  };
  const value = sum();
  spaces();
  if (pos !== text.length) fail('unexpected text');
  return value;
}

/** Whether `text` evaluates to `bytes` within the column's display rounding (relative 1e-3). */
export function evaluatesTo(text: string, bytes: number): boolean {
  return Math.abs(evaluateExpression(text) - bytes) <= 1e-3 * Math.abs(bytes) + 1e-9;
}
