// page.js: what the scripts of scratchgpt's pages share (core/page.h puts it before each page's
// own script): elements built with their attributes in order, and numbers as C's printf writes
// them (the pages' C++ printed them itself before it only gathered data). toFixed and
// toExponential round an exact tie (0.15625 to 4 places) away from zero, glibc to even:
// fixed() and general() do as glibc does. Leaves out: every other printf conversion.

const SVG = 'http://www.w3.org/2000/svg';  // a name, never fetched

// An element with its attributes in the order given, then its children (nodes or text).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

// The same in SVG's namespace.
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

// The decimal digits of |x| exactly (a double has a finite expansion), leading and trailing
// zeros dropped, and where the point falls: x = 0.digits * 10^point.
function exactDigits(x) {
  const s = Math.abs(x).toPrecision(100);
  const [m, e] = s.split('e');
  const dot = m.indexOf('.');
  let digits = m.replace('.', ''), point = (dot < 0 ? m.length : dot) + (e ? Number(e) : 0);
  const lead = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(lead).replace(/0+$/, '');
  return { digits, point: point - lead };
}

// Whether the number whose significant digits are `digits`, cut after the first `keep` of them,
// is an exact tie (the rest is one 5) whose last kept digit is even (or none is kept): glibc
// rounds that down, JavaScript up.
function tieToEven(digits, keep) {
  return keep >= 0 && digits.length === keep + 1 && digits[keep] === '5' &&
         (keep === 0 || Number(digits[keep - 1]) % 2 === 0);
}

// printf("%.{n}f", x)
function fixed(x, n) {
  const s = Object.is(x, -0) ? '-' + (0).toFixed(n) : x.toFixed(n);
  if ((Math.abs(x) * 10 ** n) % 1 !== 0.5) return s;  // no tie: JavaScript's digits are glibc's
  const { digits, point } = exactDigits(x);
  if (!tieToEven(digits, point + n)) return s;
  const k = digits.slice(0, point + n).padStart(n + 1, '0');  // rounded down: the 5 dropped
  return (x < 0 ? '-' : '') + (n > 0 ? k.slice(0, -n) + '.' + k.slice(-n) : k);
}

// printf("%.{p}g", x): p significant digits, the exponent form below 1e-4 or from 10^p, trailing
// zeros dropped.
function general(x, p) {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const { digits, point } = exactDigits(x);
  const m = tieToEven(digits, p)  // rounded down: no carry, the exponent is x's own
      ? (x < 0 ? '-' : '') + digits[0] + (p > 1 ? '.' + digits.slice(1, p) : '') + 'e' + (point - 1)
      : x.toExponential(p - 1);
  const [mantissa, e] = m.split('e');
  const X = Number(e);
  const strip = s => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (X >= -4 && X < p) return strip(fixed(x, p - 1 - X));
  return strip(mantissa) + 'e' + (X < 0 ? '-' : '+') + String(Math.abs(X)).padStart(2, '0');
}
